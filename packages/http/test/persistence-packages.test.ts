/**
 * Uploaded packages, their vetting and external parties' signing keys are participant state,
 * journaled like the rest: a restart, a snapshot's restore and a store written by the old format
 * (a separate `ledger` stream) all give them back, as the ledger API shows them.
 */
import { Effect, Either } from "effect"
import type { PackageDescription } from "@sandnet/core"
import { LedgerApi, Packages } from "@sandnet/engine"
import { EventStore, makeMemoryBacking } from "@sandnet/store"
import { describe, expect, it } from "vitest"
import * as Node from "@sandnet/node"
import { call, get, post } from "./ledger-support.ts"
import { startStoredNode, type StoredTestNode } from "./persistence-support.ts"

const app = (name: string, version: string): PackageDescription => ({
  name,
  version,
  modules: [{ name: "Kept.Main", templates: [{ name: "Thing", choices: [], implements: [] }], interfaces: [] }]
})
const vetted = app("kept-vetted", "1.0.0")
const unvetted = app("kept-unvetted", "1.0.0")
const later = app("kept-later", "1.0.0")
const idOf = (description: PackageDescription) => Packages.packageIdOfDescription(description)
const darOf = (description: PackageDescription) => Packages.buildDar({ name: description.name, version: description.version, packages: [description] })

const upload = async (node: StoredTestNode, description: PackageDescription, vet: boolean) => {
  const answer = await call(`${node.url}/v2/dars?vetAllPackages=${vet}`, {
    method: "POST",
    token: node.admin,
    rawBody: darOf(description),
    headers: { "content-type": "application/octet-stream" }
  })
  expect(answer.status).toBe(200)
}

const archiveOf = async (node: StoredTestNode, description: PackageDescription) => {
  const response = await fetch(`${node.url}/v2/packages/${idOf(description)}`, { headers: { authorization: `Bearer ${node.admin}` } })
  expect(response.status).toBe(200)
  return [...new Uint8Array(await response.arrayBuffer())]
}

/** What the ledger API shows of the node's packages and vetting. */
const packagesSeen = async (node: StoredTestNode) => ({
  packageIds: ((await get(node, "/v2/packages", node.admin)).json as { packageIds: ReadonlyArray<string> }).packageIds,
  vetting: (await post(node, "/v2/package-vetting/list", node.admin, {})).json as {
    vettedPackages: ReadonlyArray<{ participantId: string; topologySerial: number; packages: ReadonlyArray<{ packageId: string }> }>
  }
})

const vettedIds = (seen: Awaited<ReturnType<typeof packagesSeen>>) => new Set(seen.vetting.vettedPackages.flatMap((v) => v.packages.map((p) => p.packageId)))
const serials = (seen: Awaited<ReturnType<typeof packagesSeen>>) => [...new Set(seen.vetting.vettedPackages.map((v) => v.topologySerial))]

describe("uploaded packages and their vetting", () => {
  it("survive restarts: ids, archives, what is vetted and the vetting serial", async () => {
    const backing = makeMemoryBacking()
    const first = await startStoredNode(EventStore.memoryWith(backing))
    const start = await packagesSeen(first)
    await upload(first, vetted, true)
    await upload(first, unvetted, false)
    const before = await packagesSeen(first)
    expect(before.packageIds).toEqual(expect.arrayContaining([idOf(vetted), idOf(unvetted)]))
    expect(vettedIds(before).has(idOf(vetted))).toBe(true)
    expect(vettedIds(before).has(idOf(unvetted))).toBe(false)
    expect(serials(before)).toEqual([serials(start)[0]! + 1])
    const archive = await archiveOf(first, vetted)
    await first.close()

    const second = await startStoredNode(EventStore.memoryWith(backing))
    expect(await packagesSeen(second)).toEqual(before)
    expect(await archiveOf(second, vetted)).toEqual(archive)
    // vetting a package the node knows already: only the vetting changes, and that is kept too
    await upload(second, unvetted, true)
    const vettedLater = await packagesSeen(second)
    expect(vettedIds(vettedLater).has(idOf(unvetted))).toBe(true)
    expect(serials(vettedLater)).toEqual([serials(before)[0]! + 1])
    await second.close()

    const third = await startStoredNode(EventStore.memoryWith(backing))
    expect(await packagesSeen(third)).toEqual(vettedLater)
    await third.close()
  })

  it("are the snapshot's after a restore, also from an archive into another store", async () => {
    const backing = makeMemoryBacking()
    const node = await startStoredNode(EventStore.memoryWith(backing))
    await upload(node, vetted, true)
    await upload(node, unvetted, false)
    const atSnapshot = await packagesSeen(node)
    const taken = await post(node, "/v2/sandnet/snapshot", node.admin, {})
    expect(taken.status).toBe(200)
    const { snapshotId } = taken.json as { snapshotId: string }
    const download = await fetch(`${node.url}/v2/sandnet/snapshots/${snapshotId}`, { headers: { authorization: `Bearer ${node.admin}` } })
    const archive = new Uint8Array(await download.arrayBuffer())
    await upload(node, later, true)
    expect((await packagesSeen(node)).packageIds).toContain(idOf(later))

    expect((await post(node, "/v2/sandnet/restore", node.admin, { snapshotId })).status).toBe(200)
    expect(await packagesSeen(node)).toEqual(atSnapshot)
    await node.close()

    const elsewhere = await startStoredNode(EventStore.memoryWith(makeMemoryBacking()))
    const restored = await call(`${elsewhere.url}/v2/sandnet/restore/archive`, {
      method: "POST",
      token: elsewhere.admin,
      rawBody: archive,
      headers: { "content-type": "application/octet-stream" }
    })
    expect(restored.status).toBe(200)
    expect(await packagesSeen(elsewhere)).toEqual(atSnapshot)
    await elsewhere.close()
  })
})

/** An external party hosted on validator1, with keys as an allocation verifies them. */
const externalParty = (uid: string) => {
  const raw = new Uint8Array(32).map((_, i) => i * 7)
  return {
    partyId: `ext::1220${"ab".repeat(32)}`,
    hosting: { threshold: 1, participants: [{ participantUid: uid, permission: "Confirmation" }] },
    signingKeys: { threshold: 1, keys: [{ raw, spki: new Uint8Array([48, 42, 1, 2]), fingerprint: `1220${"cd".repeat(32)}` }] }
  } as unknown as Parameters<typeof LedgerApi.hostExternalParty>[2]
}

describe("external parties' signing keys", () => {
  it("are the snapshot's after a restore from an archive into another store", async () => {
    const node = await startStoredNode(EventStore.memoryWith(makeMemoryBacking()))
    const engine = await Effect.runPromise(node.runtime.engine)
    const party = externalParty(engine.network.validators[0]!.participant.logic.uid)
    const hosted = await Effect.runPromise(node.runtime.run((e) => Effect.sync(() => LedgerApi.hostExternalParty(e.network, e.topology, party, e.clock.now))))
    expect(Either.isRight(hosted)).toBe(true)
    const keys = LedgerApi.externalPartyKeys(engine.network, party.partyId)
    expect(keys?.keys[0]?.raw).toEqual(new Uint8Array(32).map((_, i) => i * 7))
    const taken = await post(node, "/v2/sandnet/snapshot", node.admin, {})
    const { snapshotId } = taken.json as { snapshotId: string }
    const download = await fetch(`${node.url}/v2/sandnet/snapshots/${snapshotId}`, { headers: { authorization: `Bearer ${node.admin}` } })
    const archive = new Uint8Array(await download.arrayBuffer())
    await node.close()

    const elsewhere = await startStoredNode(EventStore.memoryWith(makeMemoryBacking()))
    const restored = await call(`${elsewhere.url}/v2/sandnet/restore/archive`, {
      method: "POST",
      token: elsewhere.admin,
      rawBody: archive,
      headers: { "content-type": "application/octet-stream" }
    })
    expect(restored.status).toBe(200)
    const after = await Effect.runPromise(elsewhere.runtime.engine)
    expect(after.topology.hosting(party.partyId)).toEqual(engine.topology.hosting(party.partyId))
    expect(LedgerApi.externalPartyKeys(after.network, party.partyId)).toEqual(keys)
    // the party is listed as external, hosted on validator1, by the ledger API
    const parties = (await get(elsewhere, `/v2/parties/${encodeURIComponent(party.partyId)}`, elsewhere.admin)).json as {
      partyDetails: ReadonlyArray<{ party: string; isLocal: boolean }>
    }
    expect(parties.partyDetails).toEqual([expect.objectContaining({ party: party.partyId, isLocal: true })])
    await elsewhere.close()
  })
})

describe("stores of the old format", () => {
  it("their `ledger` stream (uploaded packages, external parties) is still replayed", async () => {
    const backing = makeMemoryBacking()
    const first = await startStoredNode(EventStore.memoryWith(backing))
    const engine = await Effect.runPromise(first.runtime.engine)
    const uid = engine.network.validators[0]!.participant.logic.uid
    const now = engine.clock.now
    await first.close()
    // what the old node wrote after an upload with vetting, one without, and an external party
    const party = externalParty(uid)
    const hosting = { party: party.partyId, participants: [{ participantUid: uid, permission: "Confirmation" }], threshold: 1, external: true }
    const legacy: ReadonlyArray<Node.LedgerEvent> = [
      { _tag: "PackagesUploaded", uploadedAt: now, vetted: true, packages: [{ packageId: idOf(vetted), description: vetted }] },
      { _tag: "PackagesUploaded", uploadedAt: now, vetted: false, packages: [{ packageId: idOf(unvetted), description: unvetted }] },
      { _tag: "ExternalPartyRegistered", hosting: hosting as never, signingKeys: Node.encodeBinary(party.signingKeys) }
    ]
    await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* EventStore
        const { lastOrdinal } = yield* Node.readJournals(store)
        yield* store.append(
          legacy.map((event, i) => ({ stream: Node.Streams.ledger, seq: i + 1, kind: event._tag, body: { n: lastOrdinal + i + 1, event } }))
        )
      }).pipe(Effect.provide(EventStore.memoryWith(backing)))
    )

    const second = await startStoredNode(EventStore.memoryWith(backing))
    const seen = await packagesSeen(second)
    expect(seen.packageIds).toEqual(expect.arrayContaining([idOf(vetted), idOf(unvetted)]))
    expect(vettedIds(seen).has(idOf(vetted))).toBe(true)
    expect(vettedIds(seen).has(idOf(unvetted))).toBe(false)
    const after = await Effect.runPromise(second.runtime.engine)
    expect(after.topology.hosting(party.partyId)).toMatchObject({ party: party.partyId, external: true })
    expect(LedgerApi.externalPartyKeys(after.network, party.partyId)?.keys.map((k) => [...k.raw])).toEqual([[...new Uint8Array(32).map((_, i) => i * 7)]])
    // new uploads go to the participants' journals, beside the old stream, and both are kept
    await upload(second, later, true)
    await second.close()
    const third = await startStoredNode(EventStore.memoryWith(backing))
    const again = await packagesSeen(third)
    expect(again.packageIds).toEqual(expect.arrayContaining([idOf(vetted), idOf(unvetted), idOf(later)]))
    expect(vettedIds(again).has(idOf(later))).toBe(true)
    await third.close()
  })
})
