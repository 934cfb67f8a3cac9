/**
 * The interpreter: runs commands against a participant's view of the ledger and produces a
 * transaction tree (created / exercised nodes in execution order, pre-order node ids), the input
 * contracts it used, and its views (the units that are confirmed by the parties concerned).
 * What creates, exercises and fetches do, with Daml's authorization rules, is in update-context.ts;
 * how the tree is cut into views, in views.ts.
 */
import { Either } from "effect"
import {
  ArithmeticError,
  ChoiceNotFound,
  ContractDoesNotImplementInterface,
  TemplateNotFound,
  type ActiveContract,
  type ContractId,
  type InterpretationError,
  type Json,
  type JsonObject,
  type Micros,
  type PartyId,
  type TxNode
} from "@sandnet/core"
import { internParties, mergeSorted } from "./party-lists.ts"
import type { AnyChoice, Choice, Template, TemplateRegistry } from "./template.ts"
import { Abort, abort, Interpretation, type InputContract } from "./update-context.ts"
import { decomposeViews, type NodeMeta, type ViewInfo } from "./views.ts"

export { describeParseError, type InputContract } from "./update-context.ts"
export type { ViewInfo } from "./views.ts"

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

export const interpret = (input: InterpretationInput): Either.Either<InterpretedTransaction, InterpretationError> => {
  const run = new Interpretation(input.registry, input.transactionSeed, input.ledgerTime, input.lookup, input.actAs)
  try {
    for (const command of input.commands) runCommand(run, command)
  } catch (thrown) {
    if (thrown instanceof Abort) return Either.left(thrown.error)
    // Numeric overflow is Daml's ArithmeticError: the interpretation fails, the engine is fine.
    if (thrown instanceof ArithmeticError) return Either.left(run.failure(thrown.message))
    throw thrown
  }
  const { nodes, meta, rootNodeIds } = run
  assignWitnesses(nodes, meta)
  const { views, rootViews } = decomposeViews(nodes, meta, rootNodeIds, input.transactionSeed)
  return Either.right({
    nodes,
    rootNodeIds,
    inputs: run.inputs,
    createdContractIds: run.createdContractIds,
    views,
    rootViews,
    results: run.results,
    ledgerTime: input.ledgerTime
  })
}

/** Runs one root command, adding its result to the interpretation's results. */
const runCommand = (run: Interpretation, command: Command): void => {
  switch (command._tag) {
    case "CreateCommand":
      run.results.push(run.create(run.templateOf(command.templateId), command.createArguments))
      break
    case "ExerciseCommand":
      run.results.push(run.exercise(exercisedChoice(run, command), command.contractId, command.choiceArgument))
      break
    case "CreateAndExerciseCommand": {
      const template = run.templateOf(command.templateId)
      const choice = template.choices.get(command.choice) ?? abort(new ChoiceNotFound({ templateId: command.templateId, choice: command.choice }))
      const contractId = run.create(template, command.createArguments)
      run.results.push(run.exercise(choice, contractId, command.choiceArgument))
      break
    }
  }
}

/**
 * The choice an exercise names. By template id: the template's own or inherited choice. By
 * interface id (either reference form), as Daml exercises through an interface: the contract's
 * own template must implement the interface, and the choice is that interface's choice of the name.
 */
const exercisedChoice = (run: Interpretation, command: Extract<Command, { _tag: "ExerciseCommand" }>): AnyChoice<unknown> => {
  const notFound = () => abort(new ChoiceNotFound({ templateId: command.templateId, choice: command.choice }))
  const template = run.registry.lookup(command.templateId)
  if (template !== undefined) return template.choices.get(command.choice) ?? notFound()
  const interfaceId = run.registry.interfaceOf(command.templateId) ?? abort(new TemplateNotFound({ templateId: command.templateId }))
  const contract = run.resolve(command.contractId)
  const actual = run.templateOf(contract.created.templateId)
  if (!actual.interfaces.some((i) => i.interfaceId() === interfaceId)) {
    abort(new ContractDoesNotImplementInterface({ contractId: command.contractId, templateId: actual.templateId, interfaceId }))
  }
  const choice = actual.choices.get(command.choice)
  return choice !== undefined && choice.interfaceId === interfaceId ? choice : notFound()
}

/** Witnesses: a node's informees plus the witnesses of its ancestors (parents come first in pre-order). */
const assignWitnesses = (nodes: ReadonlyArray<TxNode>, meta: ReadonlyArray<NodeMeta>): void => {
  const witnesses: Array<ReadonlyArray<PartyId>> = []
  for (let i = 0; i < nodes.length; i++) {
    const m = meta[i]!
    const own = m.parent === undefined ? m.informees : mergeSorted(m.informees, witnesses[m.parent]!)
    witnesses.push(own)
    // a created contract may stay live for long: its lists are shared (party-lists.ts)
    ;(nodes[i] as { witnesses: ReadonlyArray<PartyId> }).witnesses = nodes[i]!.kind === "created" ? internParties(own) : own
  }
}
