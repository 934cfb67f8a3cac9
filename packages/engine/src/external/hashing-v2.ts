/**
 * Canton's hashing scheme V2 for interactive submissions (HASHING_SCHEME_VERSION_V2): the hash an
 * external party signs for a prepared transaction, computed over the decoded protobuf
 * `PreparedTransaction` message field by field (not over its bytes), as Canton's
 * `InteractiveSubmission` and the Wallet SDK's `hashPreparedTransaction` do:
 *
 *     hash = sha256(int32be(48) || 0x02 || transactionHash || metadataHash)
 *     transactionHash = sha256(int32be(48) || string(version) || repeated(roots, sha256(node)))
 *     metadataHash    = sha256(int32be(48) || 0x01 || repeated(actAs) || string(commandId)
 *                              || string(transactionUuid) || int32(mediatorGroup) || string(synchronizerId)
 *                              || optional(minLET) || optional(maxLET) || int64(preparationTime)
 *                              || repeated(inputContracts, int64(createdAt) || sha256(create node)))
 *
 * Encodings: int32/int64 big endian, string = int32 length || utf8, bytes of a hex contract id =
 * int32 length || bytes, repeated = int32 count || items, optional = 0x00 | 0x01 || item. A node
 * starts with its encoding version 0x01, its LF version and its kind (create 0, exercise 1, fetch
 * 2, rollback 3); values start with their kind (unit 0 ... genMap 15). Children and roots are
 * hashed nodes. Pure and synchronous; a message that cannot be hashed (a missing node or seed, a
 * cycle, a contract id that is not hex, a value without a kind) is a Left naming the problem.
 */
import { HashingSchemeVersion, type Create, type Exercise, type Fetch, type Identifier, type PreparedTransaction, type Value } from "@canton-network/core-ledger-proto"
import { Either } from "effect"
import { createHash } from "node:crypto"
import { hexToBytes, int32BigEndian } from "./encoding.ts"
import { HashPurpose } from "./hash.ts"

type DamlTransaction = NonNullable<PreparedTransaction["transaction"]>
type Metadata = NonNullable<PreparedTransaction["metadata"]>
type Node = DamlTransaction["nodes"][number]

/** Internal: thrown while encoding, turned into a Left at the boundary. */
class Unhashable {
  constructor(readonly reason: string) {}
}
const fail = (reason: string): never => {
  throw new Unhashable(reason)
}

/** Collects the bytes of one encoding. */
class Bytes {
  private readonly parts: Array<Uint8Array> = []
  byte(b: number): this {
    this.parts.push(Uint8Array.of(b))
    return this
  }
  raw(bytes: Uint8Array): this {
    this.parts.push(bytes)
    return this
  }
  int32(n: number): this {
    return this.raw(int32BigEndian(n))
  }
  int64(n: bigint): this {
    const out = new Uint8Array(8)
    new DataView(out.buffer).setBigInt64(0, BigInt.asIntN(64, n), false)
    return this.raw(out)
  }
  bytes(bytes: Uint8Array): this {
    return this.int32(bytes.length).raw(bytes)
  }
  string(s: string): this {
    return this.bytes(new TextEncoder().encode(s))
  }
  hex(s: string, what: string): this {
    return this.bytes(hexToBytes(s) ?? fail(`${what} ${JSON.stringify(s.slice(0, 80))} is not hex`))
  }
  strings(list: ReadonlyArray<string>): this {
    this.int32(list.length)
    for (const s of list) this.string(s)
    return this
  }
  optional<A>(item: A | undefined, write: (item: A) => void): this {
    if (item === undefined) return this.byte(0)
    this.byte(1)
    write(item)
    return this
  }
  sha256(): Uint8Array {
    const hash = createHash("sha256")
    for (const part of this.parts) hash.update(part)
    return new Uint8Array(hash.digest())
  }
}

const purpose = (): Bytes => new Bytes().int32(HashPurpose.PreparedSubmission)

const identifier = (out: Bytes, id: Identifier | undefined, what: string): void => {
  if (id === undefined) return void fail(`${what} is missing`)
  out.string(id.packageId).strings(id.moduleName.split(".")).strings(id.entityName.split("."))
}

const int64Of = (text: string, what: string): bigint => (/^-?\d{1,19}$/.test(text) ? BigInt(text) : fail(`${what} ${JSON.stringify(text)} is not an int64`))

/** Values: a kind byte, then the content. */
const value = (out: Bytes, v: Value | undefined, depth: number): void => {
  if (v === undefined) return void fail("a value is missing")
  if (depth > 100) fail("values nest deeper than 100 levels")
  const sum = v.sum
  switch (sum.oneofKind) {
    case "unit":
      return void out.byte(0)
    case "bool":
      return void out.byte(1).byte(sum.bool ? 1 : 0)
    case "int64":
      return void out.byte(2).int64(int64Of(sum.int64, "an Int64"))
    case "numeric":
      return void out.byte(3).string(sum.numeric)
    case "timestamp":
      return void out.byte(4).int64(int64Of(sum.timestamp, "a Timestamp"))
    case "date":
      return void out.byte(5).int32(sum.date)
    case "party":
      return void out.byte(6).string(sum.party)
    case "text":
      return void out.byte(7).string(sum.text)
    case "contractId":
      return void out.byte(8).hex(sum.contractId, "a ContractId value")
    default:
      return compositeValue(out, sum, depth)
  }
}

const compositeValue = (out: Bytes, sum: Value["sum"], depth: number): void => {
  const inner = (v: Value | undefined) => value(out, v, depth + 1)
  switch (sum.oneofKind) {
    case "optional":
      return void out.byte(9).optional(sum.optional.value, inner)
    case "list":
      out.byte(10).int32(sum.list.elements.length)
      return sum.list.elements.forEach(inner)
    case "textMap":
      out.byte(11).int32(sum.textMap.entries.length)
      return sum.textMap.entries.forEach((e) => (out.string(e.key), inner(e.value)))
    case "record":
      out.byte(12).optional(sum.record.recordId, (id) => identifier(out, id, "recordId"))
      out.int32(sum.record.fields.length)
      return sum.record.fields.forEach((f) => (out.byte(1).string(f.label), inner(f.value)))
    case "variant":
      out.byte(13).optional(sum.variant.variantId, (id) => identifier(out, id, "variantId"))
      return void (out.string(sum.variant.constructor), inner(sum.variant.value))
    case "enum":
      out.byte(14).optional(sum.enum.enumId, (id) => identifier(out, id, "enumId"))
      return void out.string(sum.enum.constructor)
    case "genMap":
      out.byte(15).int32(sum.genMap.entries.length)
      return sum.genMap.entries.forEach((e) => (inner(e.key), inner(e.value)))
    default:
      return void fail("a value has no kind")
  }
}

/** The transaction's nodes by id and the seeds by node id, with a guard against cycles. */
interface NodeContext {
  readonly nodes: ReadonlyMap<string, Node>
  readonly seeds: ReadonlyMap<string, Uint8Array>
  readonly visiting: Set<string>
}

const createNode = (create: Create, seed: Uint8Array | undefined): Uint8Array => {
  const out = new Bytes().byte(1).string(create.lfVersion).byte(0)
  out.optional(seed, (s) => out.raw(s))
  out.hex(create.contractId, "a create node's contractId").string(create.packageName)
  identifier(out, create.templateId, "a create node's templateId")
  value(out, create.argument, 0)
  return out.strings(create.signatories).strings(create.stakeholders).sha256()
}

const exerciseNode = (exercise: Exercise, nodeId: string, ctx: NodeContext): Uint8Array => {
  const seed = ctx.seeds.get(nodeId) ?? fail(`exercise node ${nodeId} has no seed`)
  const out = new Bytes().byte(1).string(exercise.lfVersion).byte(1).raw(seed)
  out.hex(exercise.contractId, "an exercise node's contractId").string(exercise.packageName)
  identifier(out, exercise.templateId, "an exercise node's templateId")
  out.strings(exercise.signatories).strings(exercise.stakeholders).strings(exercise.actingParties)
  out.optional(exercise.interfaceId, (id) => identifier(out, id, "interfaceId")).string(exercise.choiceId)
  value(out, exercise.chosenValue, 0)
  out.byte(exercise.consuming ? 1 : 0).optional(exercise.exerciseResult, (v) => value(out, v, 0)).strings(exercise.choiceObservers)
  out.int32(exercise.children.length)
  for (const child of exercise.children) out.raw(nodeHash(child, ctx))
  return out.sha256()
}

const fetchNode = (fetch: Fetch): Uint8Array => {
  const out = new Bytes().byte(1).string(fetch.lfVersion).byte(2)
  out.hex(fetch.contractId, "a fetch node's contractId").string(fetch.packageName)
  identifier(out, fetch.templateId, "a fetch node's templateId")
  out.strings(fetch.signatories).strings(fetch.stakeholders).optional(fetch.interfaceId, (id) => identifier(out, id, "interfaceId"))
  return out.strings(fetch.actingParties).sha256()
}

const nodeHash = (nodeId: string, ctx: NodeContext): Uint8Array => {
  const node = ctx.nodes.get(nodeId) ?? fail(`node ${nodeId} is referenced but not in the transaction`)
  if (ctx.visiting.has(nodeId)) fail(`node ${nodeId} is its own descendant`)
  ctx.visiting.add(nodeId)
  try {
    if (node.versionedNode.oneofKind !== "v1") return fail(`node ${nodeId} is not a v1 node`)
    const type = node.versionedNode.v1.nodeType
    switch (type.oneofKind) {
      case "create":
        return createNode(type.create, ctx.seeds.get(nodeId))
      case "exercise":
        return exerciseNode(type.exercise, nodeId, ctx)
      case "fetch":
        return fetchNode(type.fetch)
      case "rollback": {
        const out = new Bytes().byte(1).byte(3).int32(type.rollback.children.length)
        for (const child of type.rollback.children) out.raw(nodeHash(child, ctx))
        return out.sha256()
      }
      default:
        return fail(`node ${nodeId} has no node type`)
    }
  } finally {
    ctx.visiting.delete(nodeId)
  }
}

const transactionHash = (tx: DamlTransaction): Uint8Array => {
  const nodes = new Map<string, Node>()
  for (const node of tx.nodes) {
    if (nodes.has(node.nodeId)) fail(`node id ${node.nodeId} appears twice`)
    nodes.set(node.nodeId, node)
  }
  const seeds = new Map<string, Uint8Array>()
  for (const s of tx.nodeSeeds) if (!seeds.has(String(s.nodeId))) seeds.set(String(s.nodeId), s.seed)
  const ctx: NodeContext = { nodes, seeds, visiting: new Set() }
  const out = purpose().string(tx.version).int32(tx.roots.length)
  for (const root of tx.roots) out.raw(nodeHash(root, ctx))
  return out.sha256()
}

const metadataHash = (m: Metadata): Uint8Array => {
  const submitter = m.submitterInfo ?? fail("metadata.submitterInfo is missing")
  const out = purpose().byte(1).strings(submitter.actAs).string(submitter.commandId).string(m.transactionUuid)
  out.int32(m.mediatorGroup).string(m.synchronizerId)
  out.optional(m.minLedgerEffectiveTime, (t) => out.int64(t)).optional(m.maxLedgerEffectiveTime, (t) => out.int64(t))
  out.int64(m.preparationTime).int32(m.inputContracts.length)
  for (const input of m.inputContracts) {
    if (input.contract.oneofKind !== "v1") fail("an input contract is not a v1 contract")
    else out.int64(input.createdAt).raw(createNode(input.contract.v1, undefined))
  }
  return out.sha256()
}

/** The 32 bytes an external party signs for a prepared transaction (hashing scheme V2). */
export const preparedTransactionV2Hash = (prepared: PreparedTransaction): Either.Either<Uint8Array, string> => {
  try {
    const tx = prepared.transaction ?? fail("transaction is missing")
    const metadata = prepared.metadata ?? fail("metadata is missing")
    return Either.right(purpose().byte(HashingSchemeVersion.V2).raw(transactionHash(tx)).raw(metadataHash(metadata)).sha256())
  } catch (thrown) {
    if (thrown instanceof Unhashable) return Either.left(thrown.reason)
    throw thrown
  }
}
