/**
 * Durable node storage over HTTP: a node restarted on its store resumes exactly (offsets, ACS,
 * command deduplication, users and rights, packages, scan updates and verdicts, time), the update
 * stream continues without gaps; reset also resets the store; snapshots restore the network; a
 * failed commit fails its request and the engine is rebuilt from the store. On the memory layer
 * (a backing that outlives the node) and on PGlite in a temporary directory.
 */
import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { PackageDescription } from "@sandnet/core"
import { LedgerApi, Packages } from "@sandnet/engine"
import { EventStore, makeMemoryBacking, StorageError, type MemoryBacking } from "@sandnet/store"
import { afterAll, describe, expect, it } from "vitest"
import * as Node from "@sandnet/node"
import { actAs, allocateParty, call, createOffer, engineFacts, get, post, userWith } from "./ledger-support.ts"
import { startStoredNode, type StoredTestNode } from "./persistence-support.ts"

type Json = Record<string, unknown>

const app: PackageDescription = {
  name: "stored-app",
  version: "1.0.0",
  modules: [{ name: "Stored.Main", templates: [{ name: "Thing", choices: [], implements: [] }], interfaces: [] }]
}
const dar = Packages.buildDar({ name: app.name, version: app.version, packages: [app] })

const submit = (node: StoredTestNode, token: string, body: Json) => post(node, "/v2/commands/submit-and-wait", token, body)

/** What a user of the node sees, and the engine's derived state, to compare across restarts. */
const observe = async (node: StoredTestNode, token: string) => {
  const engine = await Effect.runPromise(node.runtime.engine)
  const network = engine.network
  const v1 = network.validators[0]!.participant.logic
  const sv1 = network.superValidators[0]!
  const offsets = v1.log.map((e) => e.offset)
  return {
    ledgerEnd: ((await get(node, "/v2/state/ledger-end", token)).json as { offset: number }).offset,
    offsetsDense: offsets.every((o, i) => o === i + 1),
    acs: [...v1.acs.all()].map((c) => c.created.contractId).sort(),
    svAcs: [...sv1.participant.logic.acs.all()].map((c) => c.created.contractId).sort(),
    users: (await get(node, "/v2/users", node.admin)).json,
    rights: (await get(node, "/v2/users/alice/rights", node.admin)).json,
    packages: (await get(node, "/v2/packages", token)).json,
    parties: network.topology.allParties().map((h) => h.party).sort(),
    scanUpdates: sv1.scan.updates.map((u) => `${u.offset}:${u.update.updateId}`),
    verdicts: sv1.scan.verdictLog.map((v) => `${v.verdict.updateId}:${v.verdict.result}`),
    sequencer: network.synchronizers[0]!.sequencer.logic.lastTimestamp,
    derived: Node.derivedIndexes(network, 0),
    // the stored index rows (key-value area), for readers that do not replay the journals
    storedAcs: await storedKeys(node, Node.Streams.acsIndex("validator1")),
    storedSvAcs: await storedKeys(node, Node.Streams.acsIndex("sv1")),
    storedScan: await storedKeys(node, Node.Streams.scanIndex("sv1"))
  }
}

const storedKeys = async (node: StoredTestNode, stream: string): Promise<ReadonlyArray<string>> =>
  (await Effect.runPromise(node.storage.store.listSnapshots(stream))).map((r) => r.key).sort()

/** The stored index rows say what the engine holds. */
const expectIndexesStored = (seen: Awaited<ReturnType<typeof observe>>) => {
  expect(seen.storedAcs).toEqual(seen.acs)
  expect(seen.storedSvAcs).toEqual(seen.svAcs)
  expect(seen.storedScan).toEqual(seen.scanUpdates.map((u) => u.split(":")[1]!).sort())
}

const tempDirs: Array<string> = []
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** Runs the restart scenario on a store layer that keeps its data across builds. */
const restartScenario = async (store: () => Layer.Layer<EventStore, unknown>) => {
  const first = await startStoredNode(store())
  const facts = await engineFacts(first)
  const alice = await allocateParty(first, "alice")
  const bob = await allocateParty(first, "bob")
  const token = await userWith(first, "alice", [actAs(alice)])
  const offer = (commandId: string) => ({ commands: [createOffer(alice, bob, facts.dso, commandId)], commandId, actAs: [alice] })
  const uploaded = await call(`${first.url}/v2/packages`, { method: "POST", token: first.admin, rawBody: dar, headers: { "content-type": "application/octet-stream" } })
  expect(uploaded.status).toBe(200)
  const answers = await Promise.all(["o-1", "o-2", "o-3", "o-4", "o-5"].map((id) => submit(first, token, offer(id))))
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
  // a rejected command is journaled too
  expect((await submit(first, token, offer("o-1"))).status).toBe(409)
  await post(first, "/v2/sandnet/time/advance", first.admin, { duration: "1h" })
  const before = await observe(first, token)
  expectIndexesStored(before)
  expect(before.storedAcs.length).toBeGreaterThan(5)
  const timeBefore = await Effect.runPromise(first.runtime.now)
  await first.close()

  const second = await startStoredNode(store())
  const after = await observe(second, token)
  expect(after).toEqual(before)
  expect(before.packages).toMatchObject({ packageIds: expect.arrayContaining([Packages.packageIdOfDescription(app)]) })
  expect(await Effect.runPromise(second.runtime.now)).toBeGreaterThanOrEqual(timeBefore)

  // deduplication survived, and the ledger continues right after the last offset
  const duplicate = await submit(second, token, offer("o-3"))
  expect(duplicate.status).toBe(409)
  expect(duplicate.json).toMatchObject({ code: "DUPLICATE_COMMAND" })
  const next = await submit(second, token, offer("o-6"))
  expect(next.status).toBe(200)
  expect((next.json as { completionOffset: number }).completionOffset).toBe(before.ledgerEnd + 1)
  const continued = await observe(second, token)
  expect(continued.offsetsDense).toBe(true)
  expectIndexesStored(continued)
  await second.close()

  // a third start sees o-6 too, and nothing twice
  const third = await startStoredNode(store())
  const last = await observe(third, token)
  expect(last.ledgerEnd).toBe(before.ledgerEnd + 1)
  expect(last.acs).toEqual(continued.acs)
  await third.close()
}

describe("restart resumes exactly", () => {
  it("on the memory layer", async () => {
    const backing = makeMemoryBacking()
    await restartScenario(() => EventStore.memoryWith(backing))
  })

  it("on PGlite", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-persistence-"))
    tempDirs.push(dataDir)
    await restartScenario(() => EventStore.pglite({ dataDir }))
  })
})

describe("developer controls on a stored node", () => {
  const fresh = async (backing: MemoryBacking) => startStoredNode(EventStore.memoryWith(backing))

  it("reset also resets the store (users stay)", async () => {
    const backing = makeMemoryBacking()
    const node = await fresh(backing)
    const genesisEnd = (await observe(node, node.admin)).ledgerEnd
    const facts = await engineFacts(node)
    const alice = await allocateParty(node, "alice")
    const token = await userWith(node, "alice", [actAs(alice)])
    expect((await submit(node, token, { commands: [createOffer(alice, alice, facts.dso, "r-1")], commandId: "r-1", actAs: [alice] })).status).toBe(200)
    expect((await post(node, "/v2/sandnet/reset", node.admin, {})).status).toBe(200)
    await node.close()
    const again = await fresh(backing)
    const seen = await observe(again, again.admin)
    expect(seen.ledgerEnd).toBe(genesisEnd)
    expect(seen.parties).not.toContain(alice)
    expect((seen.users as { users: Array<{ id: string }> }).users.map((u) => u.id)).toContain("alice")
    await again.close()
  })

  it("snapshot, change, restore: the network is the snapshot's, also after a restart", async () => {
    const backing = makeMemoryBacking()
    const node = await fresh(backing)
    const facts = await engineFacts(node)
    const alice = await allocateParty(node, "alice")
    const token = await userWith(node, "alice", [actAs(alice)])
    const offer = (id: string) => ({ commands: [createOffer(alice, alice, facts.dso, id)], commandId: id, actAs: [alice] })
    expect((await submit(node, token, offer("s-1"))).status).toBe(200)
    const taken = await post(node, "/v2/sandnet/snapshot", node.admin, {})
    expect(taken.status).toBe(200)
    const { snapshotId } = taken.json as { snapshotId: string }
    const atSnapshot = await observe(node, token)
    expect((await submit(node, token, offer("s-2"))).status).toBe(200)
    const download = await fetch(`${node.url}/v2/sandnet/snapshots/${snapshotId}`, { headers: { authorization: `Bearer ${node.admin}` } })
    expect(download.status).toBe(200)
    const archive = new Uint8Array(await download.arrayBuffer())
    const listed = await get(node, "/v2/sandnet/snapshots", node.admin)
    // the size listed is the size taken and downloaded, to the byte (base64 padding is not counted)
    expect(listed.json).toEqual({ snapshots: [{ snapshotId, createdAt: expect.any(String), bytes: archive.length }] })
    expect((taken.json as { bytes: number }).bytes).toBe(archive.length)

    expect((await post(node, "/v2/sandnet/restore", node.admin, { snapshotId })).status).toBe(200)
    expect(await observe(node, token)).toEqual(atSnapshot)
    expectIndexesStored(atSnapshot)
    // s-2 is gone with the restore: it can be submitted again
    expect((await submit(node, token, offer("s-2"))).status).toBe(200)
    expect((await post(node, "/v2/sandnet/restore", node.admin, { snapshotId: "nope" })).status).toBe(404)
    await node.close()

    const again = await fresh(backing)
    expect((await observe(again, token)).ledgerEnd).toBe(atSnapshot.ledgerEnd + 1)
    // an archive (as downloaded) restores too
    const byArchive = await call(`${again.url}/v2/sandnet/restore/archive`, {
      method: "POST",
      token: again.admin,
      rawBody: archive,
      headers: { "content-type": "application/octet-stream" }
    })
    expect(byArchive.status).toBe(200)
    expect(await observe(again, token)).toEqual(atSnapshot)
    await again.close()
  })

  it("a failed commit fails its request; the engine is then rebuilt from the store", async () => {
    const backing = makeMemoryBacking()
    let failing = false
    const flaky = Layer.effect(
      EventStore,
      Effect.map(EventStore, (store) => ({
        ...store,
        write: (batch: Parameters<typeof store.write>[0]) =>
          failing ? Effect.fail(new StorageError({ operation: "commit", message: "disk on fire" })) : store.write(batch)
      }))
    ).pipe(Layer.provide(EventStore.memoryWith(backing)))
    const node = await startStoredNode(flaky)
    const facts = await engineFacts(node)
    const alice = await allocateParty(node, "alice")
    const token = await userWith(node, "alice", [actAs(alice)])
    const offer = (id: string) => ({ commands: [createOffer(alice, alice, facts.dso, id)], commandId: id, actAs: [alice] })
    expect((await submit(node, token, offer("f-1"))).status).toBe(200)
    const end = (await observe(node, token)).ledgerEnd
    failing = true
    expect((await submit(node, token, offer("f-2"))).status).toBe(500)
    failing = false
    // f-2 was never stored: the rebuilt engine does not have it, and it can be submitted again
    const retried = await submit(node, token, offer("f-2"))
    expect(retried.status).toBe(200)
    expect((retried.json as { completionOffset: number }).completionOffset).toBe(end + 1)
    const live = await observe(node, token)
    await node.close()
    const again = await startStoredNode(EventStore.memoryWith(backing))
    expect(await observe(again, token)).toEqual(live)
    await again.close()
  })
})

describe("external parties", () => {
  it("their hosting and signing keys (bytes included) survive a restart", async () => {
    const backing = makeMemoryBacking()
    const node = await startStoredNode(EventStore.memoryWith(backing))
    const engine = await Effect.runPromise(node.runtime.engine)
    const uid = engine.network.validators[0]!.participant.logic.uid
    const raw = new Uint8Array(32).map((_, i) => i * 7)
    const party = `ext::1220${"ab".repeat(32)}`
    const verified = {
      partyId: party,
      hosting: { threshold: 1, participants: [{ participantUid: uid, permission: "Confirmation" }] },
      signingKeys: { threshold: 1, keys: [{ raw, spki: new Uint8Array([48, 42, 1, 2]), fingerprint: `1220${"cd".repeat(32)}` }] }
    } as unknown as Parameters<typeof LedgerApi.hostExternalParty>[2]
    const hosted = await Effect.runPromise(node.runtime.run((e) => Effect.sync(() => LedgerApi.hostExternalParty(e.network, e.topology, verified, e.clock.now))))
    expect(Either.isRight(hosted)).toBe(true)
    const keysBefore = LedgerApi.externalPartyKeys(engine.network, party)
    const hostingBefore = engine.topology.hosting(party)
    await node.close()
    const again = await startStoredNode(EventStore.memoryWith(backing))
    const after = await Effect.runPromise(again.runtime.engine)
    expect(after.topology.hosting(party)).toEqual(hostingBefore)
    expect(LedgerApi.externalPartyKeys(after.network, party)).toEqual(keysBefore)
    expect(LedgerApi.externalPartyKeys(after.network, party)?.keys[0]?.raw).toBeInstanceOf(Uint8Array)
    await again.close()
  })
})

describe("rebuild", () => {
  it("recomputes the derived indexes from the journals: equal to the live ones", async () => {
    const backing = makeMemoryBacking()
    const node = await startStoredNode(EventStore.memoryWith(backing))
    const facts = await engineFacts(node)
    const alice = await allocateParty(node, "alice")
    const token = await userWith(node, "alice", [actAs(alice)])
    for (const id of ["d-1", "d-2", "d-3"]) {
      expect((await submit(node, token, { commands: [createOffer(alice, alice, facts.dso, id)], commandId: id, actAs: [alice] })).status).toBe(200)
    }
    const engine = await Effect.runPromise(node.runtime.engine)
    const live = Node.derivedIndexes(engine.network, 0)
    await node.close()
    const rebuilt = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* EventStore
        const journals = yield* Node.readJournals(store)
        const { network, replay } = yield* Node.replayNetwork(journals.config!, journals.clock!.now)
        const result = replay(journals.entries)
        if (Either.isLeft(result)) throw result.left
        const stored = yield* store.getSnapshot(Node.Streams.derived, Node.DERIVED_KEY)
        return { now: Node.derivedIndexes(network, 0), stored, lastOrdinal: journals.lastOrdinal }
      }).pipe(Effect.provide(EventStore.memoryWith(backing)))
    )
    expect(rebuilt.now).toEqual(live)
    // the node stored its indexes at shutdown, at the last journal position
    expect(rebuilt.stored).toMatchObject({ _tag: "Some", value: { ...live, ordinal: rebuilt.lastOrdinal } })
  })
})
