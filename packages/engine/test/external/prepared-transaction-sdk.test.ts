/**
 * The prepared transaction is Canton's protobuf `PreparedTransaction` and its hash Canton's V2
 * scheme, as the official Wallet SDK judges them: the SDK's bindings decode what the node
 * prepares, and the SDK's own hash functions (core-tx-visualizer's `hashPreparedTransaction`
 * and the wallet SDK's `utils.hash.preparedTransaction`) give the node's hash, over several
 * transaction shapes. The node reads its message back and replays it to the same hash. The
 * onboarding topology transactions: the SDK's combined hash is the node's multiHash, and each is
 * Canton's TopologyTransaction as the published bindings encode it.
 */
import { PreparedTransaction, TopologyTransaction } from "@canton-network/core-ledger-proto"
import { createKeyPair } from "@canton-network/core-signing-lib"
import { hashPreparedTransaction } from "@canton-network/core-tx-visualizer"
import { CustomLogAdapter, SDK } from "@canton-network/wallet-sdk"
import { describe, expect, it } from "@effect/vitest"
import { toIso, type ActiveContract, type PartyId } from "@sandnet/core"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { CoinRules_DevNet_Tap, Commands, LedgerApi, TransferOffer, archiveChoice, dsoReference, type Command } from "../../src/index.ts"
import { decodeUntypedVersionedMessage, generateExternalPartyTopology, preparedTransactionHash } from "../../src/external/index.ts"
import { makeHarness, type Harness } from "../support.ts"
import { FIXED } from "./prepared-fixture.ts"

const sdk = SDK.createOffline({ logAdapter: new CustomLogAdapter(() => undefined) })

interface World {
  readonly h: Harness
  readonly alice: PartyId
  readonly bob: PartyId
  readonly disclosed: ReadonlyArray<ActiveContract>
  readonly coinRules: string
  readonly openRound: string
  /** A transfer offer of alice's already on the ledger (an input the node sees, not disclosed). */
  readonly offer: string
}

const setUp = Effect.gen(function* () {
  const h = yield* makeHarness({ superValidators: 1, validators: 1 })
  const v1 = h.network.validators[0]!
  const alice = yield* h.run(v1.participant.allocateParty("alice"))
  const bob = yield* h.run(v1.participant.allocateParty("bob"))
  const ref = dsoReference(h.network, h.clock.now)!
  yield* h.run(v1.participant.submit({ actAs: [alice], commandId: "offer", commands: [Commands.create(TransferOffer, offerPayload(h, alice, bob, "5", "standing"))] }))
  yield* h.driver.runUntilIdle()
  const offer = [...v1.participant.logic.acs.ofTemplate(TransferOffer.templateId, alice)][0]!.created.contractId
  return {
    h,
    alice,
    bob,
    disclosed: [ref.coinRules, ref.openRound],
    coinRules: ref.coinRules.created.contractId,
    openRound: ref.openRound.created.contractId,
    offer
  } satisfies World
})

const offerPayload = (h: Harness, sender: PartyId, receiver: PartyId, amount: string, description: string) => ({
  sender,
  receiver,
  dso: h.network.dso,
  amount: { amount, unit: "CoinUnit" as const },
  description,
  expiresAt: toIso(h.clock.now + 86_400_000_000),
  trackingId: `t-${description.length}-${amount}`
})

/** One command of a generated shape. */
type Shape =
  | { readonly kind: "tap"; readonly amount: string }
  | { readonly kind: "create"; readonly amount: string; readonly description: string }
  | { readonly kind: "createAndArchive"; readonly amount: string; readonly description: string }
  | { readonly kind: "archiveStanding" }

const commandOf = (w: World, shape: Shape): Command => {
  switch (shape.kind) {
    case "tap":
      return Commands.exercise(CoinRules_DevNet_Tap, w.coinRules, { receiver: w.alice, amount: shape.amount, openRound: w.openRound })
    case "create":
      return Commands.create(TransferOffer, offerPayload(w.h, w.alice, w.bob, shape.amount, shape.description))
    case "createAndArchive":
      return Commands.createAndExercise(archiveChoice(TransferOffer), offerPayload(w.h, w.alice, w.bob, shape.amount, shape.description), {})
    case "archiveStanding":
      return Commands.exercise(archiveChoice(TransferOffer), w.offer, {})
  }
}

const amount = fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 9_999_999_999 })).map(([i, f]) => `${i}.${String(f).padStart(10, "0")}`)
const description = fc.string({ maxLength: 40, unit: "grapheme" })
const shape: fc.Arbitrary<Shape> = fc.oneof(
  amount.map((a) => ({ kind: "tap" as const, amount: a })),
  fc.record({ amount, description }).map((r) => ({ kind: "create" as const, ...r })),
  fc.record({ amount, description }).map((r) => ({ kind: "createAndArchive" as const, ...r })),
  fc.constant({ kind: "archiveStanding" as const })
)
// The standing offer can be archived once per transaction.
const shapes = fc.array(shape, { minLength: 1, maxLength: 3 }).filter((list) => list.filter((s) => s.kind === "archiveStanding").length <= 1)

const prepare = (w: World, list: ReadonlyArray<Shape>, commandId: string) =>
  Either.getOrThrow(
    LedgerApi.prepareSubmission(
      w.h.network.validators[0]!.participant,
      { commandId, actAs: [w.alice], readAs: [], commands: list.map((s) => commandOf(w, s)), disclosedContracts: w.disclosed },
      w.h.clock.now
    )
  )

describe("the prepared transaction, as the Wallet SDK reads it", () => {
  it.effect("decodes with Canton's bindings, and the SDK's hash functions give the node's hash, for any shape", () =>
    Effect.gen(function* () {
      const w = yield* setUp
      const participant = w.h.network.validators[0]!.participant
      let run = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(shapes, async (list) => {
            const prepared = prepare(w, list, `cmd-${run++}`)
            const message = PreparedTransaction.fromBinary(Buffer.from(prepared.encoded, "base64"))
            expect(message.metadata?.submitterInfo?.actAs).toEqual([w.alice])
            // A create-and-exercise is two roots, as in Canton.
            expect(message.transaction?.roots.length).toBe(list.reduce((n, s) => n + (s.kind === "createAndArchive" ? 2 : 1), 0))
            expect(await hashPreparedTransaction(prepared.encoded, "base64")).toBe(prepared.hash.base64)
            expect((await sdk.utils.hash.preparedTransaction(prepared.encoded)).toBase64()).toBe(prepared.hash.base64)
            // The node reads it back and replays it here to the same transaction.
            const decoded = Either.getOrThrow(LedgerApi.decodePreparedTransaction(prepared.encoded, "preparedTransaction"))
            expect(decoded.hash.hex).toBe(prepared.hash.hex)
            const replayed = Either.getOrThrow(LedgerApi.replayPreparedTransaction(participant, decoded, "preparedTransaction"))
            expect(replayed.transaction.createdContractIds).toEqual(prepared.transaction.createdContractIds)
          }),
          { numRuns: 25, seed: 12 }
        )
      )
    })
  )

  it.effect("types values as Daml does: a record with labels, numeric amounts, parties, a timestamp", () =>
    Effect.gen(function* () {
      const w = yield* setUp
      const prepared = prepare(w, [{ kind: "create", amount: "12.5000000000", description: "café ☕" }], "typed")
      const message = PreparedTransaction.fromBinary(Buffer.from(prepared.encoded, "base64"))
      const node = message.transaction!.nodes[0]!.versionedNode
      const create = node.oneofKind === "v1" && node.v1.nodeType.oneofKind === "create" ? node.v1.nodeType.create : undefined
      expect(create?.templateId).toEqual({ packageId: TransferOffer.pkg.id, moduleName: "Splice.Wallet.TransferOffer", entityName: "TransferOffer" })
      expect(create?.stakeholders).toEqual([w.alice, w.bob].sort())
      const fields = create?.argument?.sum.oneofKind === "record" ? create.argument.sum.record.fields : []
      expect(fields.map((f) => [f.label, f.value?.sum.oneofKind])).toEqual([
        ["sender", "party"],
        ["receiver", "party"],
        ["dso", "party"],
        ["amount", "record"],
        ["description", "text"],
        ["expiresAt", "timestamp"],
        ["trackingId", "text"]
      ])
      expect(message.metadata?.preparationTime).toBe(BigInt(w.h.clock.now))
      expect(message.transaction?.nodeSeeds.map((s) => s.seed.length)).toEqual([32])
    })
  )

  it.effect("a message changed after preparation hashes differently; one not prepared here does not replay", () =>
    Effect.gen(function* () {
      const w = yield* setUp
      const participant = w.h.network.validators[0]!.participant
      const prepared = prepare(w, [{ kind: "tap", amount: "7.0000000000" }], "tamper")
      const message = PreparedTransaction.fromBinary(Buffer.from(prepared.encoded, "base64"))
      message.metadata!.submitterInfo!.commandId = "other"
      const changed = Buffer.from(PreparedTransaction.toBinary(message)).toString("base64")
      const decoded = Either.getOrThrow(LedgerApi.decodePreparedTransaction(changed, "preparedTransaction"))
      expect(decoded.hash.base64).toBe(yield* Effect.promise(() => hashPreparedTransaction(changed)))
      expect(decoded.hash.hex).not.toBe(prepared.hash.hex)
      // A different uuid gives a different seed, so other contract ids than the message names.
      message.metadata!.transactionUuid = "00000000-0000-4000-8000-000000000000"
      const foreign = Either.getOrThrow(LedgerApi.decodePreparedTransaction(Buffer.from(PreparedTransaction.toBinary(message)).toString("base64"), "p"))
      const replay = LedgerApi.replayPreparedTransaction(participant, foreign, "p")
      expect(Either.isLeft(replay) && replay.left._tag === "CommandRejected" ? replay.left.code : "").toBe("INTERPRETATION_PREPARED_TRANSACTION_STALE")
      expect(Either.isLeft(LedgerApi.decodePreparedTransaction(Buffer.from("not a prepared transaction").toString("base64"), "p"))).toBe(true)
      // Malformed messages are InvalidArguments naming what is wrong, never a crash.
      const reencode = (change: (m: PreparedTransaction) => void) => {
        const copy = PreparedTransaction.fromBinary(Buffer.from(prepared.encoded, "base64"))
        change(copy)
        return Buffer.from(PreparedTransaction.toBinary(copy)).toString("base64")
      }
      const missingRoot = LedgerApi.decodePreparedTransaction(reencode((m) => void (m.transaction!.roots = ["99"])), "p")
      expect(Either.isLeft(missingRoot) ? missingRoot.left.message : "").toContain("node 99 is referenced but not in the transaction")
      const oddId = LedgerApi.decodePreparedTransaction(
        reencode((m) => {
          const node = m.transaction!.nodes[0]!.versionedNode
          if (node.oneofKind === "v1" && node.v1.nodeType.oneofKind === "exercise") node.v1.nodeType.exercise.contractId = "abc"
        }),
        "p"
      )
      expect(Either.isLeft(oddId) ? oddId.left.message : "").toContain("is not hex")
      const fetchRoot = Either.getOrThrow(
        LedgerApi.decodePreparedTransaction(
          reencode((m) => {
            const node = m.transaction!.nodes[0]!.versionedNode
            if (node.oneofKind === "v1" && node.v1.nodeType.oneofKind === "exercise") {
              const { lfVersion, contractId, packageName, templateId, signatories, stakeholders, actingParties } = node.v1.nodeType.exercise
              node.v1.nodeType = { oneofKind: "fetch", fetch: { lfVersion, contractId, packageName, templateId: templateId!, signatories, stakeholders, actingParties } }
            }
          }),
          "p"
        )
      )
      const notReplayable = LedgerApi.replayPreparedTransaction(participant, fetchRoot, "p")
      expect(Either.isLeft(notReplayable) && notReplayable.left._tag === "InvalidArgument" ? notReplayable.left.message : "").toContain("a fetch node")
    })
  )
})

describe("every node and value kind", () => {
  it("the SDK's two hash implementations and the node's agree on a message with every node and value kind", async () => {
    const encoded = Buffer.from(PreparedTransaction.toBinary(FIXED)).toString("base64")
    const ours = Either.getOrThrow(preparedTransactionHash(FIXED)).base64
    expect(await hashPreparedTransaction(encoded, "base64")).toBe(ours)
    expect((await sdk.utils.hash.preparedTransaction(encoded)).toBase64()).toBe(ours)
  })
})

describe("external party topology transactions, as the Wallet SDK reads them", () => {
  it("the SDK's combined hash is the node's multiHash, and each transaction is Canton's TopologyTransaction byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[a-zA-Z0-9_-]{1,30}$/),
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), { maxLength: 3 }),
        fc.boolean(),
        async (partyHint, others, observe) => {
          const keys = createKeyPair()
          const uid = (name: string, fill: string) => `${name}::1220${fill.repeat(64)}`
          const confirming = others.map((o) => uid(`c${o}`, "c"))
          const generated = Either.getOrThrow(
            generateExternalPartyTopology({
              synchronizerId: uid("sync", "a"),
              partyHint,
              publicKey: { format: "CRYPTO_KEY_FORMAT_RAW", keyData: keys.publicKey, keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519" },
              localParticipantUid: uid("local", "b"),
              otherConfirmingParticipantUids: confirming,
              observingParticipantUids: observe ? [uid("observer", "d")] : []
            })
          )
          expect(await sdk.utils.hash.topologyTransaction([...generated.topologyTransactions])).toBe(generated.multiHash)
          expect(generated.partyId).toBe(`${partyHint}::${await sdk.keys.fingerprint(keys.publicKey)}`)
          for (const serialized of generated.topologyTransactions) {
            // Canton's versioned wrapper (version 30) around the v30 TopologyTransaction.
            const inner = Either.getOrThrow(decodeUntypedVersionedMessage(Buffer.from(serialized, "base64")))
            expect(inner.version).toBe(30)
            const message = TopologyTransaction.fromBinary(inner.data)
            expect(message.serial).toBe(1)
            expect(Buffer.from(TopologyTransaction.toBinary(message)).toString("hex")).toBe(Buffer.from(inner.data).toString("hex"))
          }
        }
      ),
      { numRuns: 20, seed: 7 }
    )
  })
})
