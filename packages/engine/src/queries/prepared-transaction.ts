/**
 * A Sandnet transaction as Canton's protobuf `PreparedTransaction` (interactive submission), built
 * with Canton's published bindings (@canton-network/core-ledger-proto), and its root nodes read
 * back as commands.
 *
 * - `DamlTransaction`: version "2.1"; node ids are Sandnet's pre-order node ids as strings; created
 *   nodes are `Create` (argument typed by the template's payload Schema), exercised nodes
 *   `Exercise` (chosen value typed by the choice's argument Schema, result in the generic mapping,
 *   signatories of the exercised contract, choice observers); every node has a seed
 *   (sha256 of the transaction seed and the node id). Sandnet has no fetch or rollback nodes.
 * - `Metadata`: submitter (actAs, commandId), synchronizer, mediator group 0, the transaction
 *   uuid, the preparation time (= the ledger time the transaction executes at, microseconds) and
 *   every input contract (its create node, creation time and Sandnet's created-event blob).
 * - The transaction uuid is derived (uuid-v4 layout) from the preparing participant, command id,
 *   time and commands, and the transaction seed (hence every contract id) from the uuid: what was
 *   signed fixes the contract ids the execution creates.
 */
import {
  type Create,
  type Exercise,
  type Identifier,
  type PreparedTransaction as ProtoPreparedTransaction
} from "@canton-network/core-ledger-proto"
import { sha256OfParts, type ActiveContract, type ContractId, type CreatedNode, type ExercisedNode, type JsonObject, type Micros, type PartyId } from "@sandnet/core"
import { Either } from "effect"
import { damlValueOf, genericValue, jsonOfDamlValue } from "../external/daml-value.ts"
import { hexToBytes } from "../external/encoding.ts"
import type { Command, InterpretedTransaction } from "../ledger/interpreter.ts"
import { sortedUnique } from "../ledger/party-lists.ts"
import type { TemplateRegistry } from "../ledger/template.ts"
import { createdEventBlob } from "./created-event-blob.ts"

export type ProtoDamlTransaction = NonNullable<ProtoPreparedTransaction["transaction"]>
type ProtoNode = ProtoDamlTransaction["nodes"][number]

/** The Daml-LF version Sandnet's transactions and nodes are labelled with. */
export const LF_VERSION = "2.1"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** A uuid (v4 layout) derived from what is prepared: the same preparation gives the same uuid. */
export const transactionUuidOf = (...parts: ReadonlyArray<string>): string => {
  const hex = sha256OfParts("prepared-transaction-uuid", ...parts).split("")
  hex[12] = "4"
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  const h = hex.join("")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

export const isTransactionUuid = (text: string): boolean => UUID.test(text)

/** The transaction seed of a prepared transaction: a function of its (signed) uuid. */
export const transactionSeedOf = (transactionUuid: string): string => sha256OfParts("prepared-transaction-seed", transactionUuid)

const nodeSeed = (transactionSeed: string, nodeId: number): Uint8Array => hexToBytes(sha256OfParts("node-seed", transactionSeed, String(nodeId)))!

/** `<package id>:<module>:<entity>` as an Identifier. */
export const identifierOf = (templateId: string): Identifier => {
  const [packageId = "", moduleName = "", entityName = ""] = templateId.split(":")
  return { packageId, moduleName, entityName }
}

export const templateIdOf = (id: Identifier): string => `${id.packageId}:${id.moduleName}:${id.entityName}`

const createOf = (registry: TemplateRegistry, node: CreatedNode): Create => ({
  lfVersion: LF_VERSION,
  contractId: node.contractId,
  packageName: node.packageName,
  templateId: identifierOf(node.templateId),
  argument: damlValueOf(registry.lookup(node.templateId)?.payload, node.createArguments),
  signatories: [...node.signatories],
  stakeholders: [...sortedUnique([...node.signatories, ...node.observers])]
})

const exerciseOf = (registry: TemplateRegistry, node: ExercisedNode, contract: CreatedNode | undefined): Exercise => {
  const choice = registry.lookup(node.templateId)?.choices.get(node.choice)
  const observers = choice !== undefined && contract !== undefined ? sortedUnique(choice.observers(contract.createArguments, node.choiceArgument)) : []
  return {
    lfVersion: LF_VERSION,
    contractId: node.contractId,
    packageName: node.packageName,
    templateId: identifierOf(node.templateId),
    signatories: [...(contract?.signatories ?? [])],
    stakeholders: [...node.stakeholders],
    actingParties: [...node.actingParties],
    ...(node.interfaceId !== undefined ? { interfaceId: identifierOf(node.interfaceId) } : {}),
    choiceId: node.choice,
    chosenValue: damlValueOf(choice?.argument, node.choiceArgument),
    consuming: node.consuming,
    children: node.childNodeIds.map(String),
    exerciseResult: genericValue(node.exerciseResult),
    choiceObservers: [...observers]
  }
}

/** The interpreted transaction as a `DamlTransaction`. */
const damlTransactionOf = (registry: TemplateRegistry, transaction: InterpretedTransaction, transactionSeed: string): ProtoDamlTransaction => {
  const contracts = new Map<ContractId, CreatedNode>()
  for (const [contractId, input] of transaction.inputs) contracts.set(contractId, input.contract.created)
  for (const node of transaction.nodes) if (node.kind === "created") contracts.set(node.contractId, node)
  const nodes: Array<ProtoNode> = transaction.nodes.map((node) => ({
    nodeId: String(node.nodeId),
    versionedNode: {
      oneofKind: "v1",
      v1: {
        nodeType:
          node.kind === "created"
            ? { oneofKind: "create", create: createOf(registry, node) }
            : { oneofKind: "exercise", exercise: exerciseOf(registry, node, contracts.get(node.contractId)) }
      }
    }
  }))
  return {
    version: LF_VERSION,
    roots: transaction.rootNodeIds.map(String),
    nodes,
    nodeSeeds: transaction.nodes.map((node) => ({ nodeId: node.nodeId, seed: nodeSeed(transactionSeed, node.nodeId) }))
  }
}

export interface PreparedMetadata {
  readonly actAs: ReadonlyArray<PartyId>
  readonly commandId: string
  readonly synchronizerId: string
  readonly transactionUuid: string
  readonly preparationTime: Micros
}

const inputContractOf = (registry: TemplateRegistry, contract: ActiveContract) => ({
  contract: { oneofKind: "v1" as const, v1: createOf(registry, contract.created) },
  createdAt: BigInt(contract.created.createdAt),
  eventBlob: new Uint8Array(Buffer.from(createdEventBlob(contract), "base64"))
})

/** The interpreted transaction and its metadata as Canton's `PreparedTransaction`. */
export const preparedTransactionOf = (
  registry: TemplateRegistry,
  transaction: InterpretedTransaction,
  metadata: PreparedMetadata
): ProtoPreparedTransaction => ({
  transaction: damlTransactionOf(registry, transaction, transactionSeedOf(metadata.transactionUuid)),
  metadata: {
    submitterInfo: { actAs: [...metadata.actAs], commandId: metadata.commandId },
    synchronizerId: metadata.synchronizerId,
    mediatorGroup: 0,
    transactionUuid: metadata.transactionUuid,
    preparationTime: BigInt(metadata.preparationTime),
    inputContracts: [...transaction.inputs.values()].map((input) => inputContractOf(registry, input.contract)),
    globalKeyMapping: []
  }
})

const nodeTypeOf = (nodes: ReadonlyArray<ProtoNode>, nodeId: string | undefined) => {
  const node = nodes.find((n) => n.nodeId === nodeId)
  return node?.versionedNode.oneofKind === "v1" ? node.versionedNode.v1.nodeType : undefined
}

/**
 * The commands a transaction's roots are the result of: a root create is a CreateCommand, a root
 * exercise an ExerciseCommand, and a root create followed by a root exercise of the contract it
 * creates a CreateAndExerciseCommand. Arguments are read back with the templates' Schemas.
 */
export const commandsOfRoots = (registry: TemplateRegistry, transaction: ProtoDamlTransaction): Either.Either<ReadonlyArray<Command>, string> => {
  const commands: Array<Command> = []
  const roots = transaction.roots
  for (let i = 0; i < roots.length; i++) {
    const type = nodeTypeOf(transaction.nodes, roots[i])
    if (type?.oneofKind === "create") {
      const templateId = templateIdOf(type.create.templateId ?? { packageId: "", moduleName: "", entityName: "" })
      const template = registry.lookup(templateId)
      if (template === undefined) return Either.left(`root node ${roots[i]}: template ${templateId} is not known here`)
      const createArguments = jsonOfDamlValue(template.payload, type.create.argument) as JsonObject
      const next = nodeTypeOf(transaction.nodes, roots[i + 1])
      if (next?.oneofKind === "exercise" && next.exercise.contractId === type.create.contractId) {
        const choice = template.choices.get(next.exercise.choiceId)
        const choiceArgument = jsonOfDamlValue(choice?.argument, next.exercise.chosenValue)
        commands.push({ _tag: "CreateAndExerciseCommand", templateId, createArguments, choice: next.exercise.choiceId, choiceArgument })
        i++
      } else commands.push({ _tag: "CreateCommand", templateId, createArguments })
    } else if (type?.oneofKind === "exercise") {
      const templateId = templateIdOf(type.exercise.templateId ?? { packageId: "", moduleName: "", entityName: "" })
      const template = registry.lookup(templateId)
      if (template === undefined) return Either.left(`root node ${roots[i]}: template ${templateId} is not known here`)
      const choiceArgument = jsonOfDamlValue(template.choices.get(type.exercise.choiceId)?.argument, type.exercise.chosenValue)
      commands.push({ _tag: "ExerciseCommand", templateId, contractId: type.exercise.contractId, choice: type.exercise.choiceId, choiceArgument })
    } else {
      return Either.left(`root node ${roots[i]} is ${type === undefined ? "missing" : `a ${type.oneofKind ?? "untyped"} node`}; Sandnet executes roots that are creates or exercises`)
    }
  }
  return commands.length === 0 ? Either.left("the transaction has no root nodes") : Either.right(commands)
}
