/**
 * The contract-template mechanism. A template is a TypeScript module: a payload Schema (whose type
 * is its compact JSON form), signatories and observers, and choices whose bodies are pure functions
 * of an UpdateContext. Exercising a choice records the events of the exercise (creates, archives,
 * nested exercises) in a transaction tree; nothing else can change the ledger.
 */
import { Schema } from "effect"
import { packageIdOfDescription } from "../packages/payload.ts"
import {
  invariant,
  type ContractId,
  type Json,
  type JsonObject,
  type Micros,
  type PackageDescription,
  type PartyId
} from "@sandnet/core"

export interface ContractView<P> {
  readonly contractId: ContractId
  readonly templateId: string
  readonly payload: P
  readonly signatories: ReadonlyArray<PartyId>
  readonly observers: ReadonlyArray<PartyId>
  readonly createdAt: Micros
}

/** What a choice body can do. Bodies are synchronous and deterministic; failures throw tagged errors. */
export interface UpdateContext {
  /** Ledger effective time of the transaction. */
  readonly ledgerTime: Micros
  readonly create: <P>(template: Template<P>, payload: P) => ContractId
  readonly exercise: <P, A>(choice: Choice<P, A>, contractId: ContractId, argument: A) => Json
  readonly fetch: <P>(template: Template<P>, contractId: ContractId) => ContractView<P>
  readonly archive: <P>(template: Template<P>, contractId: ContractId) => void
  /** Aborts the whole transaction with a ChoiceFailed error (Daml's `abort`). */
  readonly fail: (message: string) => never
  /** Daml's `require`: fails the transaction when the condition does not hold. */
  readonly require: (condition: boolean, message: string) => void
}

export interface Choice<P, A> {
  readonly template: Template<P>
  readonly name: string
  readonly consuming: boolean
  readonly argument: Schema.Schema<A>
  readonly controllers: (payload: P, argument: A) => ReadonlyArray<PartyId>
  readonly observers: (payload: P, argument: A) => ReadonlyArray<PartyId>
  /** Set for choices inherited from an interface (token-standard choices). */
  readonly interfaceId: string | undefined
  readonly body: (ctx: UpdateContext, self: ContractView<P>, argument: A) => Json
}

/** A choice with its argument type erased, as the interpreter dispatches it by name. */
export interface AnyChoice<P> {
  readonly template: Template<P>
  readonly name: string
  readonly consuming: boolean
  readonly argument: Schema.Schema<unknown>
  readonly controllers: (payload: P, argument: unknown) => ReadonlyArray<PartyId>
  readonly observers: (payload: P, argument: unknown) => ReadonlyArray<PartyId>
  readonly interfaceId: string | undefined
  readonly body: (ctx: UpdateContext, self: ContractView<P>, argument: unknown) => Json
}

export interface InterfaceImplementation<P> {
  readonly interfaceId: () => string
  readonly view: (payload: P) => Json
}

export interface Template<P> {
  readonly pkg: PackageDef
  readonly moduleName: string
  readonly entityName: string
  readonly payload: Schema.Schema<P>
  readonly signatories: (payload: P) => ReadonlyArray<PartyId>
  readonly observers: (payload: P) => ReadonlyArray<PartyId>
  /** Daml's `ensure`: a message when the payload is not acceptable, undefined when it is. */
  readonly ensure: (payload: P) => string | undefined
  readonly interfaces: ReadonlyArray<InterfaceImplementation<P>>
  readonly choices: Map<string, AnyChoice<P>>
  /** `<package id>:<module>:<entity>`, computed once the package is sealed. */
  readonly templateId: string
  /** `#<package name>:<module>:<entity>`, the package-name reference form. */
  readonly nameReference: string
}

/**
 * A package groups templates. Its id is derived from its description (name, version, templates,
 * choices), so ids are stable across runs and machines. Templates register while their modules
 * load; the first read of the id seals the package.
 */
export class PackageDef {
  private readonly templates: Array<Template<unknown>> = []
  private readonly interfaceNames: Array<{ module: string; entity: string; choices: Array<{ name: string; consuming: boolean }> }> = []
  private sealedId: string | undefined

  constructor(
    readonly name: string,
    readonly version: string,
    private readonly computeId: (description: PackageDescription) => string = defaultPackageId
  ) {}

  register(template: Template<unknown>): void {
    invariant(this.sealedId === undefined, () => `package ${this.name} is sealed; cannot add ${template.entityName}`)
    this.templates.push(template)
  }

  registerInterface(module: string, entity: string, choices: Array<{ name: string; consuming: boolean }>): void {
    invariant(this.sealedId === undefined, () => `package ${this.name} is sealed; cannot add interface ${entity}`)
    this.interfaceNames.push({ module, entity, choices })
  }

  get id(): string {
    if (this.sealedId === undefined) this.sealedId = this.computeId(this.description())
    return this.sealedId
  }

  allTemplates(): ReadonlyArray<Template<unknown>> {
    return this.templates
  }

  /** The interfaces the package declares, as `Module:Entity` pairs. */
  allInterfaces(): ReadonlyArray<{ readonly module: string; readonly entity: string }> {
    return this.interfaceNames
  }

  description(): PackageDescription {
    const moduleNames = [...new Set([...this.templates.map((t) => t.moduleName), ...this.interfaceNames.map((i) => i.module)])].sort()
    return {
      name: this.name,
      version: this.version,
      modules: moduleNames.map((moduleName) => ({
        name: moduleName,
        templates: this.templates
          .filter((t) => t.moduleName === moduleName)
          .map((t) => ({
            name: t.entityName,
            choices: [...t.choices.values()]
              .filter((c) => c.interfaceId === undefined)
              .map((c) => ({ name: c.name, consuming: c.consuming }))
              .sort((a, b) => (a.name < b.name ? -1 : 1)),
            implements: t.interfaces.map((i) => i.interfaceId()).sort()
          }))
          .sort((a, b) => (a.name < b.name ? -1 : 1)),
        interfaces: this.interfaceNames
          .filter((i) => i.module === moduleName)
          .map((i) => ({ name: i.entity, choices: [...i.choices].sort((a, b) => (a.name < b.name ? -1 : 1)) }))
          .sort((a, b) => (a.name < b.name ? -1 : 1))
      }))
    }
  }
}

/** The id of the package's archive payload: the same id `sandnet dar` puts into a DAR for it. */
const defaultPackageId = (description: PackageDescription): string => packageIdOfDescription(description)

export interface TemplateOptions<P> {
  readonly pkg: PackageDef
  readonly module: string
  readonly entity: string
  readonly payload: Schema.Schema<P>
  readonly signatories: (payload: P) => ReadonlyArray<PartyId>
  readonly observers?: (payload: P) => ReadonlyArray<PartyId>
  readonly ensure?: (payload: P) => string | undefined
  readonly interfaces?: ReadonlyArray<InterfaceImplementation<P>>
}

export const ARCHIVE = "Archive"

const EmptyRecord = Schema.Struct({})

export const defineTemplate = <P>(options: TemplateOptions<P>): Template<P> => {
  let templateId: string | undefined
  const template: Template<P> = {
    pkg: options.pkg,
    moduleName: options.module,
    entityName: options.entity,
    payload: options.payload,
    signatories: options.signatories,
    observers: options.observers ?? (() => []),
    ensure: options.ensure ?? (() => undefined),
    interfaces: options.interfaces ?? [],
    choices: new Map(),
    get templateId() {
      if (templateId === undefined) templateId = `${options.pkg.id}:${options.module}:${options.entity}`
      return templateId
    },
    nameReference: `#${options.pkg.name}:${options.module}:${options.entity}`
  }
  // Every template has the implicit consuming Archive choice, controlled by its signatories.
  template.choices.set(ARCHIVE, {
    template,
    name: ARCHIVE,
    consuming: true,
    argument: EmptyRecord as Schema.Schema<unknown>,
    controllers: (payload) => template.signatories(payload),
    observers: () => [],
    interfaceId: undefined,
    body: () => ({})
  })
  options.pkg.register(template as unknown as Template<unknown>)
  return template
}


export interface ChoiceOptions<P, A> {
  readonly name: string
  readonly consuming: boolean
  readonly argument: Schema.Schema<A>
  readonly controllers: (payload: P, argument: A) => ReadonlyArray<PartyId>
  readonly observers?: (payload: P, argument: A) => ReadonlyArray<PartyId>
  readonly interfaceId?: () => string
  readonly body: (ctx: UpdateContext, self: ContractView<P>, argument: A) => Json
}

export const defineChoice = <P, A>(template: Template<P>, options: ChoiceOptions<P, A>): Choice<P, A> => {
  invariant(!template.choices.has(options.name), () => `${template.entityName} already has a choice ${options.name}`)
  let interfaceId: string | undefined
  const choice: Choice<P, A> = {
    template,
    name: options.name,
    consuming: options.consuming,
    argument: options.argument,
    controllers: options.controllers,
    observers: options.observers ?? (() => []),
    get interfaceId() {
      if (options.interfaceId === undefined) return undefined
      if (interfaceId === undefined) interfaceId = options.interfaceId()
      return interfaceId
    },
    body: options.body
  }
  template.choices.set(options.name, choice as unknown as AnyChoice<P>)
  return choice
}

export interface InterfaceDef {
  readonly pkg: PackageDef
  readonly moduleName: string
  readonly entityName: string
  /** `<package id>:<module>:<entity>`. */
  readonly interfaceId: () => string
  readonly nameReference: string
}

/** Declares an interface (e.g. the token standard's Holding); templates implement it with a view. */
export const defineInterface = (options: {
  readonly pkg: PackageDef
  readonly module: string
  readonly entity: string
  readonly choices?: ReadonlyArray<{ readonly name: string; readonly consuming: boolean }>
}): InterfaceDef => {
  options.pkg.registerInterface(options.module, options.entity, (options.choices ?? []).map((c) => ({ ...c })))
  let id: string | undefined
  return {
    pkg: options.pkg,
    moduleName: options.module,
    entityName: options.entity,
    interfaceId: () => (id ??= `${options.pkg.id}:${options.module}:${options.entity}`),
    nameReference: `#${options.pkg.name}:${options.module}:${options.entity}`
  }
}

/** The Archive choice of a template, typed. */
export const archiveChoice = <P>(template: Template<P>): Choice<P, Record<string, never>> =>
  template.choices.get(ARCHIVE) as unknown as Choice<P, Record<string, never>>

/**
 * Looks templates and interfaces up by id (package-id form) or by package-name reference
 * (`#name:Module:Entity`).
 */
export class TemplateRegistry {
  private readonly byId = new Map<string, Template<unknown>>()
  private readonly byName = new Map<string, Template<unknown>>()
  /** Either reference form of an interface -> its package-id form. */
  private readonly interfaceIds = new Map<string, string>()
  private readonly packages: Array<PackageDef> = []

  constructor(packages: ReadonlyArray<PackageDef>) {
    for (const pkg of packages) this.add(pkg)
  }

  add(pkg: PackageDef): void {
    this.packages.push(pkg)
    for (const template of pkg.allTemplates()) {
      this.byId.set(template.templateId, template)
      this.byName.set(template.nameReference, template)
    }
    for (const { module, entity } of pkg.allInterfaces()) {
      const interfaceId = `${pkg.id}:${module}:${entity}`
      this.interfaceIds.set(interfaceId, interfaceId)
      this.interfaceIds.set(`#${pkg.name}:${module}:${entity}`, interfaceId)
    }
  }

  lookup(reference: string): Template<unknown> | undefined {
    return this.byId.get(reference) ?? this.byName.get(reference)
  }

  /** The package-id form of the interface a reference names, if it names one. */
  interfaceOf(reference: string): string | undefined {
    return this.interfaceIds.get(reference)
  }

  /** A choice of the interface by that name, as one implementing template declares it (they share the argument type). */
  interfaceChoice(interfaceId: string, name: string): AnyChoice<unknown> | undefined {
    for (const template of this.byId.values()) {
      const choice = template.choices.get(name)
      if (choice !== undefined && choice.interfaceId === interfaceId) return choice
    }
    return undefined
  }

  all(): ReadonlyArray<Template<unknown>> {
    return [...this.byId.values()]
  }

  allPackages(): ReadonlyArray<PackageDef> {
    return this.packages
  }
}

/** Narrows a stored payload back to a template's type; payloads are validated on create. */
export const payloadOf = <P>(_template: Template<P>, createArguments: JsonObject): P => createArguments as unknown as P
