/**
 * One interpretation's transaction under construction, and the UpdateContext its choice bodies run
 * in: create, exercise, fetch and archive record created / exercised nodes in execution order
 * (pre-order node ids) and the input contracts used. Authorization follows Daml: a create needs all
 * signatories, an exercise all controllers, a fetch one stakeholder; inside a choice the
 * authorizers are its controllers plus the signatories of the exercised contract.
 */
import { Either, ParseResult, Schema } from "effect"
import {
  AuthorizationFailed,
  ChoiceFailed,
  ContractNotActive,
  ContractNotFound,
  TemplateNotFound,
  contractId as makeContractId,
  type ActiveContract,
  type ContractId,
  type CreatedNode,
  type ExercisedNode,
  type InterpretationError,
  type Json,
  type JsonObject,
  type Micros,
  type PartyId,
  type TxNode
} from "@sandnet/core"
import { fastCheckOf } from "./fast-check.ts"
import { jsonLength } from "./json-size.ts"
import { internParties, mergeSorted, sortedUnique } from "./party-lists.ts"
import type { AnyChoice, ContractView, Template, TemplateRegistry, UpdateContext } from "./template.ts"
import type { NodeMeta } from "./views.ts"

/** A pre-existing contract the transaction used. */
export interface InputContract {
  readonly contract: ActiveContract
  readonly consumed: boolean
}

const validators = new WeakMap<Schema.Schema.Any, (value: unknown) => Either.Either<unknown, ParseResult.ParseError>>()

/** Schema validators are built once per schema (building one is far dearer than running it). */
const validatorOf = <A>(schema: Schema.Schema<A>): ((value: unknown) => Either.Either<A, ParseResult.ParseError>) => {
  let validate = validators.get(schema)
  if (validate === undefined) {
    const decode = Schema.decodeUnknownEither(schema)
    // Input the precompiled check accepts would decode; the rest is decoded for its result or error.
    const check = fastCheckOf(schema.ast)
    validate = check === undefined ? decode : (value) => (check(value) ? Either.right(value) : decode(value))
    validators.set(schema, validate)
  }
  return validate as (value: unknown) => Either.Either<A, ParseResult.ParseError>
}

/** The first problems of a failed decode, each with the path of the offending field. */
export const describeParseError = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .slice(0, 3)
    .map((issue) => `${issue.path.length === 0 ? "" : issue.path.join(".") + ": "}${issue.message.length > 200 ? issue.message.slice(0, 200) + "…" : issue.message}`)
    .join("; ")

/** Thrown inside a run and turned into a Left at the boundary. */
export class Abort {
  constructor(readonly error: InterpretationError) {}
}

export const abort = (error: InterpretationError): never => {
  throw new Abort(error)
}

/** One run of `interpret`: the transaction built so far, and the nodes whose bodies are running. */
export class Interpretation {
  readonly nodes: Array<TxNode> = []
  readonly meta: Array<NodeMeta> = []
  readonly rootNodeIds: Array<number> = []
  readonly inputs = new Map<ContractId, InputContract>()
  readonly created = new Map<ContractId, ActiveContract>()
  readonly consumedInTx = new Set<ContractId>()
  readonly createdContractIds: Array<ContractId> = []
  readonly results: Array<Json> = []
  /** The (mutable) child list of each exercised node, by node id. */
  readonly childLists: Array<Array<number> | undefined> = []
  /** Node whose body is running (the parent of anything created now); undefined at the root. */
  readonly stack: Array<number> = []
  /** Who authorizes what runs now: the submitters at the root; inside a choice, its controllers and the contract's signatories. */
  authorizers: ReadonlySet<PartyId>
  /** What the choice bodies of this interpretation are given. */
  readonly ctx: UpdateContext

  constructor(
    readonly registry: TemplateRegistry,
    readonly transactionSeed: string,
    readonly ledgerTime: Micros,
    /** Contracts the submitter can use: its participant's active contracts it can see, plus disclosed ones. */
    readonly lookup: (contractId: ContractId) => ActiveContract | undefined,
    actAs: ReadonlyArray<PartyId>
  ) {
    this.authorizers = new Set(actAs)
    this.ctx = updateContextOf(this)
  }

  currentParent(): number | undefined {
    return this.stack[this.stack.length - 1]
  }

  resolve(contractId: ContractId): ActiveContract {
    if (this.consumedInTx.has(contractId)) abort(new ContractNotActive({ contractId, reason: "consumed earlier in this transaction" }))
    const local = this.created.get(contractId)
    if (local !== undefined) return local
    const known = this.lookup(contractId)
    if (known === undefined) return abort(new ContractNotFound({ contractId }))
    return known
  }

  noteInput(contract: ActiveContract, consumed: boolean, attributeTo: number | undefined): void {
    const contractId = contract.created.contractId
    if (this.created.has(contractId)) return
    const previous = this.inputs.get(contractId)
    this.inputs.set(contractId, { contract, consumed: consumed || (previous?.consumed ?? false) })
    if (attributeTo !== undefined) this.meta[attributeTo]!.inputs.push(contractId)
  }

  templateOf(reference: string): Template<unknown> {
    const template = this.registry.lookup(reference)
    return template ?? abort(new TemplateNotFound({ templateId: reference }))
  }

  requireAuthorizers(required: ReadonlyArray<PartyId>, what: string): void {
    const missing = required.filter((p) => !this.authorizers.has(p))
    if (missing.length > 0) {
      abort(new AuthorizationFailed({ message: `${what} requires authorizers ${missing.join(", ")}`, missing: [...missing] }))
    }
  }

  /**
   * Payloads and arguments of root commands come from outside (clients, JSON) and are validated;
   * nested ones are built by template code, whose types the compiler already checked.
   */
  validate<A>(schema: Schema.Schema<A>, value: unknown, templateId: string, choice: string): A {
    if (this.stack.length > 0) return value as A
    const decoded = validatorOf(schema)(value)
    if (Either.isLeft(decoded)) {
      return abort(
        new ChoiceFailed({ templateId, choice, message: `invalid ${choice === "create" ? "payload" : "argument"}: ${describeParseError(decoded.left)}` })
      )
    }
    // The compact JSON form is the type: keep the caller's object (decoding is validation only).
    return value as A
  }

  create<P>(template: Template<P>, payload: P): ContractId {
    const templateId = template.templateId
    this.validate(template.payload, payload, templateId, "create")
    const failure = template.ensure(payload)
    if (failure !== undefined) abort(new ChoiceFailed({ templateId, choice: "create", message: `template precondition violated: ${failure}` }))
    const signatories = sortedUnique(template.signatories(payload))
    const observers = sortedUnique(template.observers(payload).filter((p) => !signatories.includes(p)))
    this.requireAuthorizers(signatories, `create of ${template.entityName}`)
    const nodeId = this.nodes.length
    const contractId = makeContractId(this.transactionSeed, nodeId)
    const createArguments = payload as unknown as JsonObject
    const interfaceViews: Record<string, Json> = {}
    for (const impl of template.interfaces) interfaceViews[impl.interfaceId()] = impl.view(payload)
    this.childLists[nodeId] = undefined
    const node: CreatedNode = {
      kind: "created",
      nodeId,
      contractId,
      templateId,
      packageName: template.pkg.name,
      createArguments,
      signatories: internParties(signatories),
      observers: internParties(observers),
      createdAt: this.ledgerTime,
      witnesses: [],
      interfaceViews
    }
    this.nodes.push(node)
    const parent = this.currentParent()
    this.meta.push({
      informees: mergeSorted(signatories, observers),
      confirmers: signatories,
      parent,
      inputs: [],
      size: 160 + jsonLength(createArguments)
    })
    if (parent === undefined) this.rootNodeIds.push(nodeId)
    else this.childLists[parent]!.push(nodeId)
    const contract: ActiveContract = { created: node, createdInUpdateId: "", synchronizerId: "", reassignmentCounter: 0 }
    this.created.set(contractId, contract)
    this.createdContractIds.push(contractId)
    return contractId
  }

  exercise<P>(choice: AnyChoice<P>, contractId: ContractId, argument: unknown): Json {
    const template = choice.template
    const contract = this.resolve(contractId)
    checkTemplate(template as Template<unknown>, contract, contractId)
    const args = this.validate(choice.argument, argument, template.templateId, choice.name)
    const self = viewOf(template, contract)
    const controllers = sortedUnique(choice.controllers(self.payload, args))
    this.requireAuthorizers(controllers, `exercise of ${template.entityName}.${choice.name}`)
    const choiceObservers = choice.observers(self.payload, args)
    // Party lists are kept sorted and duplicate-free, so unions are linear merges.
    const stakeholders = mergeSorted(self.signatories, self.observers)
    const extra = choiceObservers.length === 0 ? controllers : mergeSorted(controllers, sortedUnique(choiceObservers))
    const informees = mergeSorted(choice.consuming ? stakeholders : self.signatories, extra)
    const nodeId = this.nodes.length
    const parent = this.currentParent()
    const node: ExercisedNode & { childNodeIds: Array<number>; lastDescendantNodeId: number; exerciseResult: Json } = {
      kind: "exercised",
      nodeId,
      contractId,
      templateId: template.templateId,
      packageName: template.pkg.name,
      ...(choice.interfaceId !== undefined ? { interfaceId: choice.interfaceId } : {}),
      choice: choice.name,
      choiceArgument: args as Json,
      actingParties: controllers,
      consuming: choice.consuming,
      childNodeIds: this.childLists[nodeId] = [],
      lastDescendantNodeId: nodeId,
      exerciseResult: null,
      stakeholders,
      witnesses: [],
      implementedInterfaces: implementedInterfacesOf(template)
    }
    this.nodes.push(node)
    this.meta.push({
      informees,
      confirmers: mergeSorted(self.signatories, controllers),
      parent,
      inputs: [],
      size: 200 + jsonLength(args ?? null)
    })
    if (parent === undefined) this.rootNodeIds.push(nodeId)
    else this.childLists[parent]!.push(nodeId)
    this.noteInput(contract, choice.consuming, nodeId)
    if (choice.consuming) this.consumedInTx.add(contractId)
    const outerAuthorizers = this.authorizers
    const inner = new Set(controllers)
    for (const party of self.signatories) inner.add(party)
    this.authorizers = inner
    this.stack.push(nodeId)
    const result = choice.body(this.ctx, self, args)
    this.stack.pop()
    this.authorizers = outerAuthorizers
    node.exerciseResult = result
    node.lastDescendantNodeId = this.nodes.length - 1
    return result
  }

  fetch<P>(template: Template<P>, contractId: ContractId): ContractView<P> {
    const contract = this.resolve(contractId)
    checkTemplate(template as Template<unknown>, contract, contractId)
    const { signatories, observers } = contract.created
    if (!signatories.some((p) => this.authorizers.has(p)) && !observers.some((p) => this.authorizers.has(p))) {
      const stakeholders = [...signatories, ...observers]
      abort(
        new AuthorizationFailed({
          message: `fetch of ${template.entityName} ${contractId} requires one of its stakeholders as authorizer`,
          missing: sortedUnique(stakeholders) as Array<PartyId>
        })
      )
    }
    this.noteInput(contract, false, this.currentParent())
    return viewOf(template, contract)
  }

  fail(message: string): never {
    return abort(this.failure(message))
  }

  /** The failure of the choice running now (Daml's `abort`, or an ArithmeticError it raised). */
  failure(message: string): ChoiceFailed {
    const running = this.currentParent()
    const node = running === undefined ? undefined : this.nodes[running]
    return new ChoiceFailed({
      templateId: node?.templateId ?? "",
      choice: node?.kind === "exercised" ? node.choice : "create",
      message
    })
  }
}

/** The interfaces a template implements, one (immutable) list per template rather than one per exercised node. */
const implementedInterfaces = new WeakMap<object, ReadonlyArray<string>>()
const implementedInterfacesOf = <P>(template: Template<P>): ReadonlyArray<string> => {
  let ids = implementedInterfaces.get(template)
  if (ids === undefined) implementedInterfaces.set(template, (ids = template.interfaces.map((i) => i.interfaceId())))
  return ids
}

const viewOf = <P>(template: Template<P>, contract: ActiveContract): ContractView<P> => ({
  contractId: contract.created.contractId,
  templateId: template.templateId,
  payload: contract.created.createArguments as unknown as P,
  signatories: contract.created.signatories,
  observers: contract.created.observers,
  createdAt: contract.created.createdAt
})

const checkTemplate = (template: Template<unknown>, contract: ActiveContract, contractId: ContractId): void => {
  if (contract.created.templateId !== template.templateId) {
    abort(
      new ChoiceFailed({
        templateId: template.templateId,
        choice: "fetch",
        message: `contract ${contractId} is a ${contract.created.templateId}, not a ${template.templateId}`
      })
    )
  }
}

/** The context handed to choice bodies: Daml's update operations on this interpretation. */
const updateContextOf = (run: Interpretation): UpdateContext => {
  const ctx: UpdateContext = {
    ledgerTime: run.ledgerTime,
    create: (template, payload) => run.create(template, payload),
    exercise: (choice, contractId, argument) => run.exercise(choice as unknown as AnyChoice<unknown>, contractId, argument),
    fetch: (template, contractId) => run.fetch(template, contractId),
    archive: (template, contractId) => {
      const choice = template.choices.get("Archive")
      run.exercise(choice as AnyChoice<unknown>, contractId, {})
    },
    fail: (message) => run.fail(message),
    require: (condition, message) => {
      if (!condition) ctx.fail(message)
    }
  }
  return ctx
}
