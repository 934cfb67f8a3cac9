/**
 * The interpreter: runs commands against a participant's view of the ledger and produces a
 * transaction tree (created / exercised nodes in execution order, pre-order node ids), the input
 * contracts it used, and its views (the units that are confirmed by the parties concerned).
 * Authorization follows Daml: a create needs all signatories, an exercise all controllers,
 * a fetch one stakeholder; inside a choice the authorizers are its controllers plus the
 * signatories of the exercised contract.
 */
import { Either, ParseResult, Schema } from "effect"
import {
  AuthorizationFailed,
  ChoiceFailed,
  ChoiceNotFound,
  ContractNotActive,
  ContractNotFound,
  TemplateNotFound,
  contractId as makeContractId,
  sha256OfParts,
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
import type { AnyChoice, Choice, ContractView, Template, TemplateRegistry, UpdateContext } from "./template.ts"

export type Command =
  | { readonly _tag: "CreateCommand"; readonly templateId: string; readonly createArguments: JsonObject }
  | {
      readonly _tag: "ExerciseCommand"
      readonly templateId: string
      readonly contractId: ContractId
      readonly choice: string
      readonly choiceArgument: Json
    }
  | {
      readonly _tag: "CreateAndExerciseCommand"
      readonly templateId: string
      readonly createArguments: JsonObject
      readonly choice: string
      readonly choiceArgument: Json
    }

/** Typed constructors for commands issued by engine code. */
export const Commands = {
  create: <P>(template: Template<P>, payload: P): Command => ({
    _tag: "CreateCommand",
    templateId: template.templateId,
    createArguments: payload as unknown as JsonObject
  }),
  exercise: <P, A>(choice: Choice<P, A>, contractId: ContractId, argument: A): Command => ({
    _tag: "ExerciseCommand",
    templateId: choice.template.templateId,
    contractId,
    choice: choice.name,
    choiceArgument: argument as unknown as Json
  }),
  createAndExercise: <P, A>(choice: Choice<P, A>, payload: P, argument: A): Command => ({
    _tag: "CreateAndExerciseCommand",
    templateId: choice.template.templateId,
    createArguments: payload as unknown as JsonObject,
    choice: choice.name,
    choiceArgument: argument as unknown as Json
  })
}

/** A pre-existing contract the transaction used. */
export interface InputContract {
  readonly contract: ActiveContract
  readonly consumed: boolean
}

export interface ViewInfo {
  readonly viewId: number
  readonly parentViewId: number | undefined
  readonly nodeIds: ReadonlyArray<number>
  readonly informees: ReadonlyArray<PartyId>
  readonly confirmingParties: ReadonlyArray<PartyId>
  /** Pre-existing contracts used by this view's own nodes (exercised or fetched). */
  readonly inputContractIds: ReadonlyArray<ContractId>
  readonly subViews: ReadonlyArray<number>
  readonly viewHash: string
  /** Approximate serialized size in bytes, for traffic accounting. */
  readonly size: number
}

export interface InterpretedTransaction {
  readonly nodes: ReadonlyArray<TxNode>
  readonly rootNodeIds: ReadonlyArray<number>
  readonly inputs: ReadonlyMap<ContractId, InputContract>
  readonly createdContractIds: ReadonlyArray<ContractId>
  readonly views: ReadonlyArray<ViewInfo>
  readonly rootViews: ReadonlyArray<number>
  /** Results of the root commands, in order (the created contract id for a create). */
  readonly results: ReadonlyArray<Json>
  readonly ledgerTime: Micros
}

export interface InterpretationInput {
  readonly registry: TemplateRegistry
  /** Seeds contract ids; unique per submission. */
  readonly transactionSeed: string
  readonly ledgerTime: Micros
  readonly actAs: ReadonlyArray<PartyId>
  /** Contracts the submitter can use: its participant's active contracts it can see, plus disclosed ones. */
  readonly lookup: (contractId: ContractId) => ActiveContract | undefined
  readonly commands: ReadonlyArray<Command>
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
class Abort {
  constructor(readonly error: InterpretationError) {}
}

interface NodeMeta {
  readonly informees: ReadonlyArray<PartyId>
  readonly confirmers: ReadonlyArray<PartyId>
  parent: number | undefined
  /** Pre-existing contracts used directly by this node (its target, or fetched inside its body). */
  readonly inputs: Array<ContractId>
  size: number
}

const sortedUnique = (parties: ReadonlyArray<PartyId>): ReadonlyArray<PartyId> => {
  // Most party lists are short and already sorted and unique: keep them as they are.
  let ordered = true
  for (let i = 1; i < parties.length; i++) {
    if (!(parties[i - 1]! < parties[i]!)) {
      ordered = false
      break
    }
  }
  return ordered ? parties : [...new Set(parties)].sort()
}

/** Union of two sorted, duplicate-free lists; returns `b` itself when `a` adds nothing (the usual case). */
const mergeSorted = (a: ReadonlyArray<PartyId>, b: ReadonlyArray<PartyId>): ReadonlyArray<PartyId> => {
  const out: Array<PartyId> = []
  let i = 0
  let j = 0
  let added = false
  while (i < a.length || j < b.length) {
    const x = a[i]
    const y = b[j]
    if (y === undefined || (x !== undefined && x < y)) {
      out.push(x!)
      i++
      added = true
    } else if (x === undefined || y < x) {
      out.push(y)
      j++
    } else {
      out.push(x)
      i++
      j++
    }
  }
  return added ? out : b
}

const isSubset = (small: ReadonlyArray<PartyId>, big: ReadonlySet<PartyId>): boolean => small.every((p) => big.has(p))

export const interpret = (input: InterpretationInput): Either.Either<InterpretedTransaction, InterpretationError> => {
  const nodes: Array<TxNode> = []
  const meta: Array<NodeMeta> = []
  const rootNodeIds: Array<number> = []
  const inputs = new Map<ContractId, InputContract>()
  const created = new Map<ContractId, ActiveContract>()
  const consumedInTx = new Set<ContractId>()
  const createdContractIds: Array<ContractId> = []
  const results: Array<Json> = []
  /** The (mutable) child list of each exercised node, by node id. */
  const childLists: Array<Array<number> | undefined> = []
  /** Node whose body is running (the parent of anything created now); undefined at the root. */
  const stack: Array<number> = []
  /** Pre-existing contracts fetched while no node was running are attributed to the next root. */
  let authorizers: ReadonlySet<PartyId> = new Set(input.actAs)

  const abort = (error: InterpretationError): never => {
    throw new Abort(error)
  }

  const currentParent = (): number | undefined => stack[stack.length - 1]

  const resolve = (contractId: ContractId): ActiveContract => {
    if (consumedInTx.has(contractId)) abort(new ContractNotActive({ contractId, reason: "consumed earlier in this transaction" }))
    const local = created.get(contractId)
    if (local !== undefined) return local
    const known = input.lookup(contractId)
    if (known === undefined) return abort(new ContractNotFound({ contractId }))
    return known
  }

  const noteInput = (contract: ActiveContract, consumed: boolean, attributeTo: number | undefined): void => {
    const contractId = contract.created.contractId
    if (created.has(contractId)) return
    const previous = inputs.get(contractId)
    inputs.set(contractId, { contract, consumed: consumed || (previous?.consumed ?? false) })
    if (attributeTo !== undefined) meta[attributeTo]!.inputs.push(contractId)
  }

  const templateOf = (reference: string): Template<unknown> => {
    const template = input.registry.lookup(reference)
    return template ?? abort(new TemplateNotFound({ templateId: reference }))
  }

  const requireAuthorizers = (required: ReadonlyArray<PartyId>, what: string): void => {
    const missing = required.filter((p) => !authorizers.has(p))
    if (missing.length > 0) {
      abort(new AuthorizationFailed({ message: `${what} requires authorizers ${missing.join(", ")}`, missing: [...missing] }))
    }
  }

  /**
   * Payloads and arguments of root commands come from outside (clients, JSON) and are validated;
   * nested ones are built by template code, whose types the compiler already checked.
   */
  const validate = <A>(schema: Schema.Schema<A>, value: unknown, templateId: string, choice: string): A => {
    if (stack.length > 0) return value as A
    const decoded = validatorOf(schema)(value)
    if (Either.isLeft(decoded)) {
      return abort(
        new ChoiceFailed({ templateId, choice, message: `invalid ${choice === "create" ? "payload" : "argument"}: ${describeParseError(decoded.left)}` })
      )
    }
    // The compact JSON form is the type: keep the caller's object (decoding is validation only).
    return value as A
  }

  const doCreate = <P>(template: Template<P>, payload: P): ContractId => {
    const templateId = template.templateId
    validate(template.payload, payload, templateId, "create")
    const failure = template.ensure(payload)
    if (failure !== undefined) abort(new ChoiceFailed({ templateId, choice: "create", message: `template precondition violated: ${failure}` }))
    const signatories = sortedUnique(template.signatories(payload))
    const observers = sortedUnique(template.observers(payload).filter((p) => !signatories.includes(p)))
    requireAuthorizers(signatories, `create of ${template.entityName}`)
    const nodeId = nodes.length
    const contractId = makeContractId(input.transactionSeed, nodeId)
    const createArguments = payload as unknown as JsonObject
    const interfaceViews: Record<string, Json> = {}
    for (const impl of template.interfaces) interfaceViews[impl.interfaceId()] = impl.view(payload)
    childLists[nodeId] = undefined
    const node: CreatedNode = {
      kind: "created",
      nodeId,
      contractId,
      templateId,
      packageName: template.pkg.name,
      createArguments,
      signatories,
      observers,
      createdAt: input.ledgerTime,
      witnesses: [],
      interfaceViews
    }
    nodes.push(node)
    const parent = currentParent()
    meta.push({
      informees: mergeSorted(signatories, observers),
      confirmers: signatories,
      parent,
      inputs: [],
      size: 160 + JSON.stringify(createArguments).length
    })
    if (parent === undefined) rootNodeIds.push(nodeId)
    else childLists[parent]!.push(nodeId)
    const contract: ActiveContract = { created: node, createdInUpdateId: "", synchronizerId: "", reassignmentCounter: 0 }
    created.set(contractId, contract)
    createdContractIds.push(contractId)
    return contractId
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

  const doExercise = <P>(choice: AnyChoice<P>, contractId: ContractId, argument: unknown): Json => {
    const template = choice.template
    const contract = resolve(contractId)
    checkTemplate(template as Template<unknown>, contract, contractId)
    const args = validate(choice.argument, argument, template.templateId, choice.name)
    const self = viewOf(template, contract)
    const controllers = sortedUnique(choice.controllers(self.payload, args))
    requireAuthorizers(controllers, `exercise of ${template.entityName}.${choice.name}`)
    const choiceObservers = choice.observers(self.payload, args)
    // Party lists are kept sorted and duplicate-free, so unions are linear merges.
    const stakeholders = mergeSorted(self.signatories, self.observers)
    const extra = choiceObservers.length === 0 ? controllers : mergeSorted(controllers, sortedUnique(choiceObservers))
    const informees = mergeSorted(choice.consuming ? stakeholders : self.signatories, extra)
    const nodeId = nodes.length
    const parent = currentParent()
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
      childNodeIds: childLists[nodeId] = [],
      lastDescendantNodeId: nodeId,
      exerciseResult: null,
      stakeholders,
      witnesses: [],
      implementedInterfaces: template.interfaces.map((i) => i.interfaceId())
    }
    nodes.push(node)
    meta.push({
      informees,
      confirmers: mergeSorted(self.signatories, controllers),
      parent,
      inputs: [],
      size: 200 + JSON.stringify(args ?? null).length
    })
    if (parent === undefined) rootNodeIds.push(nodeId)
    else childLists[parent]!.push(nodeId)
    noteInput(contract, choice.consuming, nodeId)
    if (choice.consuming) consumedInTx.add(contractId)
    const outerAuthorizers = authorizers
    authorizers = new Set([...controllers, ...self.signatories])
    stack.push(nodeId)
    const result = choice.body(ctx, self, args)
    stack.pop()
    authorizers = outerAuthorizers
    node.exerciseResult = result
    node.lastDescendantNodeId = nodes.length - 1
    return result
  }

  const ctx: UpdateContext = {
    ledgerTime: input.ledgerTime,
    create: (template, payload) => doCreate(template, payload),
    exercise: (choice, contractId, argument) =>
      doExercise(choice as unknown as AnyChoice<unknown>, contractId, argument),
    fetch: <P>(template: Template<P>, contractId: ContractId): ContractView<P> => {
      const contract = resolve(contractId)
      checkTemplate(template as Template<unknown>, contract, contractId)
      const stakeholders = [...contract.created.signatories, ...contract.created.observers]
      if (!stakeholders.some((p) => authorizers.has(p))) {
        abort(
          new AuthorizationFailed({
            message: `fetch of ${template.entityName} ${contractId} requires one of its stakeholders as authorizer`,
            missing: sortedUnique(stakeholders) as Array<PartyId>
          })
        )
      }
      noteInput(contract, false, currentParent())
      return viewOf(template, contract)
    },
    archive: (template, contractId) => {
      const choice = template.choices.get("Archive")
      doExercise(choice as AnyChoice<unknown>, contractId, {})
    },
    fail: (message) => {
      const running = currentParent()
      const node = running === undefined ? undefined : nodes[running]
      return abort(
        new ChoiceFailed({
          templateId: node?.templateId ?? "",
          choice: node?.kind === "exercised" ? node.choice : "create",
          message
        })
      )
    },
    require: (condition, message) => {
      if (!condition) ctx.fail(message)
    }
  }

  try {
    for (const command of input.commands) {
      const template = templateOf(command.templateId)
      switch (command._tag) {
        case "CreateCommand":
          results.push(doCreate(template, command.createArguments))
          break
        case "ExerciseCommand": {
          const choice = template.choices.get(command.choice) ?? abort(new ChoiceNotFound({ templateId: command.templateId, choice: command.choice }))
          results.push(doExercise(choice, command.contractId, command.choiceArgument))
          break
        }
        case "CreateAndExerciseCommand": {
          const choice = template.choices.get(command.choice) ?? abort(new ChoiceNotFound({ templateId: command.templateId, choice: command.choice }))
          const contractId = doCreate(template, command.createArguments)
          results.push(doExercise(choice, contractId, command.choiceArgument))
          break
        }
      }
    }
  } catch (thrown) {
    if (thrown instanceof Abort) return Either.left(thrown.error)
    throw thrown
  }

  // Witnesses: a node's informees plus the witnesses of its ancestors (parents come first in pre-order).
  const witnesses: Array<ReadonlyArray<PartyId>> = []
  for (let i = 0; i < nodes.length; i++) {
    const m = meta[i]!
    const own = m.parent === undefined ? m.informees : mergeSorted(m.informees, witnesses[m.parent]!)
    witnesses.push(own)
    ;(nodes[i] as { witnesses: ReadonlyArray<PartyId> }).witnesses = own
  }

  const { views, rootViews } = decomposeViews(nodes, meta, rootNodeIds, input.transactionSeed)
  return Either.right({
    nodes,
    rootNodeIds,
    inputs,
    createdContractIds,
    views,
    rootViews,
    results,
    ledgerTime: input.ledgerTime
  })
}

/**
 * View decomposition: each root node starts a view; a child node starts a sub-view when its
 * informees are not all informees of its parent's view (so that parties only confirm what they
 * are entitled to see). A view's confirming parties are the signatories and actors of its nodes.
 */
const decomposeViews = (
  nodes: ReadonlyArray<TxNode>,
  meta: ReadonlyArray<NodeMeta>,
  rootNodeIds: ReadonlyArray<number>,
  seed: string
): { views: ReadonlyArray<ViewInfo>; rootViews: ReadonlyArray<number> } => {
  interface Building {
    viewId: number
    parentViewId: number | undefined
    nodeIds: Array<number>
    informees: Set<PartyId>
    confirmers: Set<PartyId>
    inputs: Array<ContractId>
    subViews: Array<number>
    size: number
  }
  const building: Array<Building> = []
  const viewOfNode = new Array<number>(nodes.length)
  const rootViews: Array<number> = []
  const open = (parentViewId: number | undefined): Building => {
    const view: Building = {
      viewId: building.length,
      parentViewId,
      nodeIds: [],
      informees: new Set(),
      confirmers: new Set(),
      inputs: [],
      subViews: [],
      size: 0
    }
    building.push(view)
    if (parentViewId === undefined) rootViews.push(view.viewId)
    else building[parentViewId]!.subViews.push(view.viewId)
    return view
  }
  const place = (nodeId: number, view: Building): void => {
    const m = meta[nodeId]!
    view.nodeIds.push(nodeId)
    for (const p of m.informees) view.informees.add(p)
    for (const p of m.confirmers) view.confirmers.add(p)
    view.inputs.push(...m.inputs)
    view.size += m.size
    viewOfNode[nodeId] = view.viewId
  }
  const visit = (nodeId: number, view: Building): void => {
    place(nodeId, view)
    const node = nodes[nodeId]!
    if (node.kind !== "exercised") return
    for (const child of node.childNodeIds) {
      const childInformees = meta[child]!.informees
      const target = isSubset(childInformees, view.informees) ? view : open(view.viewId)
      visit(child, target)
    }
  }
  for (const root of rootNodeIds) visit(root, open(undefined))
  const views = building.map((v): ViewInfo => {
    const informees = [...v.informees].sort()
    const confirmingParties = [...v.confirmers].sort()
    return {
      viewId: v.viewId,
      parentViewId: v.parentViewId,
      nodeIds: v.nodeIds,
      informees,
      confirmingParties,
      inputContractIds: [...new Set(v.inputs)],
      subViews: v.subViews,
      viewHash: sha256OfParts("view", seed, String(v.viewId), v.nodeIds.join(","), informees.join(",")),
      size: v.size
    }
  })
  return { views, rootViews }
}
