/**
 * Participant authorization topology events in the ledger update stream, over real HTTP: a party
 * allocated (or an external party, or a wallet user onboarded) shows as one TopologyTransaction
 * with a ParticipantAuthorizationAdded event at its own offset, only when the update format asks
 * for topology events, only for the listed parties; in the websocket form too, in the lookups, and
 * at the same offset after a restart on persistent storage.
 */
import { generateKeyPairSync, sign } from "node:crypto"
import { Effect, Either } from "effect"
import { EventStore, makeMemoryBacking } from "@sandnet/store"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  actAs,
  allocateParty,
  createOffer,
  engineFacts,
  get,
  post,
  readAs,
  readAsAnyParty,
  startLedgerNode,
  userWith,
  websocket,
  type LedgerTestNode
} from "./ledger-support.ts"
import { startStoredNode } from "./persistence-support.ts"
import { onboard, startWalletNode } from "./wallet-support.ts"

type Json = Record<string, unknown>
interface Authorization {
  readonly partyId: string
  readonly participantId: string
  readonly participantPermission: string
}
interface TopologyTx {
  readonly updateId: string
  readonly offset: number
  readonly synchronizerId: string
  readonly recordTime: string
  readonly events: ReadonlyArray<{ readonly event: { readonly ParticipantAuthorizationAdded?: { readonly value: Authorization } } }>
  readonly traceContext: unknown
}
type Item = { readonly update: Record<string, { readonly value: Json }> }

const topologyFormat = (parties: ReadonlyArray<string>) => ({ includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties } } })
const acsFormat = (party: string) => ({
  includeTransactions: { eventFormat: { filtersByParty: { [party]: {} } }, transactionShape: "TRANSACTION_SHAPE_ACS_DELTA" }
})

const kindOf = (item: Item): string => Object.keys(item.update)[0]!
const topologyOf = (items: ReadonlyArray<Item>): ReadonlyArray<TopologyTx> =>
  items.filter((i) => kindOf(i) === "TopologyTransaction").map((i) => i.update["TopologyTransaction"]!.value as unknown as TopologyTx)
const authorizationsOf = (items: ReadonlyArray<Item>): ReadonlyArray<Authorization & { readonly offset: number }> =>
  topologyOf(items).flatMap((t) => t.events.map((e) => ({ ...e.event.ParticipantAuthorizationAdded!.value, offset: t.offset })))

const read = async (node: LedgerTestNode, token: string, body: Json): Promise<ReadonlyArray<Item>> => {
  const answer = await post(node, "/v2/updates", token, body)
  expect(answer.status, answer.text).toBe(200)
  return answer.json as ReadonlyArray<Item>
}

const ledgerEnd = async (node: LedgerTestNode, token: string): Promise<number> =>
  ((await get(node, "/v2/state/ledger-end", token)).json as { offset: number }).offset

describe("topology events of local parties", () => {
  let node: LedgerTestNode
  let facts: Awaited<ReturnType<typeof engineFacts>>
  let participantId: string
  let alice: string
  let carol: string
  let dave: string
  let aliceToken: string
  let carolToken: string
  let readerToken: string
  /** Offsets of alice's transactions just before and just after carol's allocation. */
  let before: number
  let after: number

  beforeAll(async () => {
    node = await startLedgerNode()
    facts = await engineFacts(node)
    participantId = ((await get(node, "/v2/parties/participant-id", node.admin)).json as { participantId: string }).participantId
    alice = await allocateParty(node, "alice")
    aliceToken = await userWith(node, "alice", [actAs(alice)])
    readerToken = await userWith(node, "reader", [readAsAnyParty])
    const submit = async (commandId: string) => {
      const answer = await post(node, "/v2/commands/submit-and-wait", aliceToken, {
        commands: [createOffer(alice, alice, facts.dso, commandId)],
        commandId,
        actAs: [alice]
      })
      expect(answer.status, answer.text).toBe(200)
      return (answer.json as { completionOffset: number }).completionOffset
    }
    before = await submit("before")
    carol = await allocateParty(node, "carol")
    after = await submit("after")
    dave = await allocateParty(node, "dave")
    carolToken = await userWith(node, "carol", [readAs(carol)])
  })
  afterAll(() => node.close())

  it("allocating a party adds exactly one ParticipantAuthorizationAdded, at its own offset between its neighbours", async () => {
    const items = await read(node, carolToken, { beginExclusive: 0, updateFormat: topologyFormat([carol]) })
    const carols = authorizationsOf(items)
    expect(carols).toEqual([{ partyId: carol, participantId, participantPermission: "PARTICIPANT_PERMISSION_SUBMISSION", offset: before + 1 }])
    expect(after).toBe(before + 2)
    const tx = topologyOf(items)[0]!
    expect(tx.updateId).toMatch(/^1220[0-9a-f]{64}$/)
    expect(tx.synchronizerId).toBe(facts.synchronizerId)
    expect(tx.recordTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
    expect(Object.keys(tx)).not.toContain("traceContext")
    // the ledger end counts it; the stream ends with a checkpoint at the end
    expect(await ledgerEnd(node, carolToken)).toBe(after + 1)
    expect(kindOf(items[items.length - 1]!)).toBe("OffsetCheckpoint")
  })

  it("without includeTopologyEvents none appears; with transactions too, both in offset order", async () => {
    const plain = await read(node, aliceToken, { beginExclusive: 0, updateFormat: acsFormat(alice) })
    expect(topologyOf(plain)).toEqual([])
    const legacy = await read(node, aliceToken, { beginExclusive: 0, filter: { filtersByParty: { [alice]: {} } } })
    expect(topologyOf(legacy)).toEqual([])
    const both = await read(node, aliceToken, { beginExclusive: 0, updateFormat: { ...acsFormat(alice), ...topologyFormat([alice]) } })
    const offsets = both.filter((i) => kindOf(i) !== "OffsetCheckpoint").map((i) => i.update[kindOf(i)]!.value["offset"] as number)
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b))
    expect(authorizationsOf(both).map((a) => a.partyId)).toEqual([alice])
    expect(both.filter((i) => kindOf(i) === "Transaction")).toHaveLength(2)
  })

  it("a party filter excludes other parties' events; an empty list (read as any party) shows every hosting", async () => {
    const onlyDave = await read(node, readerToken, { beginExclusive: 0, updateFormat: topologyFormat([dave]) })
    expect(authorizationsOf(onlyDave).map((a) => a.partyId)).toEqual([dave])
    const all = authorizationsOf(await read(node, readerToken, { beginExclusive: 0, updateFormat: topologyFormat([]) }))
    const operator = await Effect.runPromise(Effect.map(node.runtime.engine, (e) => e.network.validators[0]!.operator))
    expect(all.map((a) => a.partyId)).toEqual([operator, alice, carol, dave])
    expect(all.map((a) => a.offset)).toEqual([...all.map((a) => a.offset)].sort((a, b) => a - b))
    expect(new Set(all.map((a) => a.participantId))).toEqual(new Set([participantId]))
  })

  it("reading another party's or every party's events needs the rights", async () => {
    expect((await post(node, "/v2/updates", carolToken, { beginExclusive: 0, updateFormat: topologyFormat([dave]) })).status).toBe(403)
    expect((await post(node, "/v2/updates", carolToken, { beginExclusive: 0, updateFormat: topologyFormat([]) })).status).toBe(403)
  })

  it("lookups find a topology update when the format asks for it, UPDATE_NOT_FOUND otherwise", async () => {
    const tx = topologyOf(await read(node, carolToken, { beginExclusive: 0, updateFormat: topologyFormat([carol]) }))[0]!
    const byId = await post(node, "/v2/updates/update-by-id", carolToken, { updateId: tx.updateId, updateFormat: topologyFormat([carol]) })
    expect(byId.status, byId.text).toBe(200)
    expect(byId.json).toEqual({ update: { TopologyTransaction: { value: tx } } })
    const byOffset = await post(node, "/v2/updates/update-by-offset", carolToken, { offset: tx.offset, updateFormat: topologyFormat([carol]) })
    expect(byOffset.json).toEqual(byId.json)
    const asTransaction = await post(node, "/v2/updates/update-by-id", carolToken, { updateId: tx.updateId, updateFormat: acsFormat(carol) })
    expect(asTransaction.status).toBe(404)
    expect(asTransaction.json).toMatchObject({ code: "UPDATE_NOT_FOUND" })
    const otherParty = await post(node, "/v2/updates/update-by-offset", readerToken, { offset: tx.offset, updateFormat: topologyFormat([dave]) })
    expect(otherParty.json).toMatchObject({ code: "UPDATE_NOT_FOUND" })
    const legacy = await post(node, "/v2/updates/transaction-by-offset", carolToken, { offset: tx.offset, requestingParties: [carol] })
    expect(legacy.json).toMatchObject({ code: "UPDATE_NOT_FOUND" })
  })

  it("the active contracts at a topology update's offset are those of the offset before", async () => {
    const at = (offset: number) =>
      post(node, "/v2/state/active-contracts", aliceToken, { activeAtOffset: offset, eventFormat: { filtersByParty: { [alice]: {} } } })
    const atTopology = await at(before + 1)
    expect(atTopology.status, atTopology.text).toBe(200)
    expect(atTopology.json).toEqual((await at(before)).json)
    expect((atTopology.json as ReadonlyArray<unknown>).length).toBeGreaterThan(0)
  })

  it("the websocket stream carries them too; trees never do", async () => {
    const body = { beginExclusive: 0, endInclusive: after + 1, updateFormat: topologyFormat([carol]) }
    const streamed = await websocket(node, "/v2/updates", carolToken, body)
    expect(Either.isRight(streamed)).toBe(true)
    const items = Either.getOrThrow(streamed) as ReadonlyArray<Item>
    expect(items).toEqual(await read(node, carolToken, body))
    expect(authorizationsOf(items).map((a) => a.partyId)).toEqual([carol])
    const trees = await post(node, "/v2/updates/trees", aliceToken, { beginExclusive: 0, endInclusive: after, filter: { filtersByParty: { [alice]: {} } } })
    expect(trees.status, trees.text).toBe(200)
    expect((trees.json as ReadonlyArray<Item>).map(kindOf)).not.toContain("TopologyTransaction")
  })
})

describe("topology events of external parties and wallet users", () => {
  let node: LedgerTestNode
  afterAll(() => node.close())

  it("an external party observed here and confirmed on the super validator: OBSERVATION here, CONFIRMATION on sv1", async () => {
    node = await startLedgerNode()
    const facts = await engineFacts(node)
    const sv1 = await Effect.runPromise(Effect.map(node.runtime.engine, (e) => e.network.superValidators[0]!.participant.logic))
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    const key = {
      format: "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
      keyData: Buffer.from(publicKey.export({ type: "spki", format: "der" })).toString("base64"),
      keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519"
    }
    const generated = await post(node, "/v2/parties/external/generate-topology", node.admin, {
      synchronizer: facts.synchronizerId,
      partyHint: "erin",
      publicKey: key,
      localParticipantObservationOnly: true,
      otherConfirmingParticipantUids: [sv1.uid.replace(/^PAR::/, "")]
    })
    expect(generated.status, generated.text).toBe(200)
    const topology = generated.json as { partyId: string; publicKeyFingerprint: string; topologyTransactions: Array<string>; multiHash: string }
    const end = await ledgerEnd(node, node.admin)
    const allocated = await post(node, "/v2/parties/external/allocate", node.admin, {
      synchronizer: facts.synchronizerId,
      onboardingTransactions: topology.topologyTransactions.map((transaction) => ({ transaction })),
      multiHashSignatures: [
        {
          format: "SIGNATURE_FORMAT_CONCAT",
          signature: sign(null, Buffer.from(topology.multiHash, "base64"), privateKey).toString("base64"),
          signedBy: topology.publicKeyFingerprint,
          signingAlgorithmSpec: "SIGNING_ALGORITHM_SPEC_ED25519"
        }
      ]
    })
    expect(allocated.status, allocated.text).toBe(200)
    const erin = topology.partyId
    const reader = await userWith(node, "erin-reader", [readAs(erin)])
    const items = await read(node, reader, { beginExclusive: end, updateFormat: topologyFormat([erin]) })
    expect(authorizationsOf(items)).toEqual([
      { partyId: erin, participantId: facts.participantUid.replace(/^PAR::/, ""), participantPermission: "PARTICIPANT_PERMISSION_OBSERVATION", offset: end + 1 }
    ])
    const onSv1 = [...sv1.log].flatMap((e) => (e.update.kind === "topology" ? e.update.events : [])).filter((e) => e.partyId === erin)
    expect(onSv1.map((e) => e.permission)).toEqual(["Confirmation"])
  })

  it("onboarding a wallet user hosts its party: one SUBMISSION event for it", async () => {
    const walletNode = await startWalletNode()
    try {
      const party = await onboard(walletNode, "wendy")
      const reader = await userWith(walletNode, "wendy-reader", [readAs(party)])
      const items = await read(walletNode, reader, { beginExclusive: 0, updateFormat: topologyFormat([party]) })
      const uid = (await walletNode.engine()).network.validators[0]!.participant.logic.uid
      expect(authorizationsOf(items).map(({ offset: _, ...a }) => a)).toEqual([
        { partyId: party, participantId: uid.replace(/^PAR::/, ""), participantPermission: "PARTICIPANT_PERMISSION_SUBMISSION" }
      ])
    } finally {
      await walletNode.close()
    }
  })
})

describe("topology events after a restart on persistent storage", () => {
  it("the same events at the same offsets, no duplicate, and new hostings continue after them", async () => {
    const backing = makeMemoryBacking()
    const everything = (node: LedgerTestNode, token: string) => read(node, token, { beginExclusive: 0, updateFormat: topologyFormat([]) })
    const first = await startStoredNode(EventStore.memoryWith(backing))
    const reader = await userWith(first, "reader", [readAsAnyParty])
    const frank = await allocateParty(first, "frank")
    const before = await everything(first, reader)
    const endBefore = await ledgerEnd(first, reader)
    await first.close()

    const second = await startStoredNode(EventStore.memoryWith(backing))
    try {
      const after = await everything(second, reader)
      expect(after).toEqual(before)
      expect(authorizationsOf(after).filter((a) => a.partyId === frank)).toHaveLength(1)
      expect(await ledgerEnd(second, reader)).toBe(endBefore)
      const gina = await allocateParty(second, "gina")
      const more = authorizationsOf(await everything(second, reader))
      expect(more.map((a) => a.partyId).slice(-2)).toEqual([frank, gina])
      expect(more[more.length - 1]!.offset).toBe(endBefore + 1)
    } finally {
      await second.close()
    }
  })
})
