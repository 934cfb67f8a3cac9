/**
 * The scan digest of the derived indexes: format 2 (what a node stores) hashes each update and
 * verdict once, as the lists grow, and equals its definition computed from scratch at every point;
 * format 1 (indexes stored before it) is still computed as it was, for `sandnet rebuild` to check
 * old stores against.
 */
import { SIMULATION_EPOCH, sha256OfParts } from "@sandnet/core"
import type { CoinNetwork } from "@sandnet/engine"
import { EventStore } from "@sandnet/store"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

type Scan = CoinNetwork["superValidators"][number]["scan"]

const updateParts = (scan: Scan) => scan.updates.map((u) => `${u.offset}:${u.update.updateId}`)
const verdictParts = (scan: Scan) => scan.verdictLog.map((v) => `${v.verdict.updateId}:${v.verdict.result}`)
const formatTwo = (scan: Scan) => sha256OfParts("scan-v2", sha256OfParts(...updateParts(scan)), sha256OfParts(...verdictParts(scan)))
const formatOne = (scan: Scan) => sha256OfParts("scan", ...updateParts(scan), ...verdictParts(scan))

/** A node after genesis, its network in hand while it runs. */
const withNetwork = async (use: (network: CoinNetwork) => void) => {
  const scope = Effect.runSync(Scope.make())
  try {
    await Effect.runPromise(
      Effect.gen(function* () {
        const store = Context.get(yield* Layer.build(EventStore.memory), EventStore)
        const storage = yield* Node.makeNodeStorage(store)
        const runtime = yield* Node.makeNodeRuntime({ storage, tickIntervalMillis: 5, clock: { _tag: "manual", start: SIMULATION_EPOCH } })
        yield* runtime.read((engine) => Effect.sync(() => use(engine.network)))
      }).pipe(Scope.extend(scope))
    )
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

describe("derived indexes, scan digest", () => {
  it("format 2 equals its definition from scratch as the scan's history grows; format 1 is the digest of older stores", async () => {
    await withNetwork((network) => {
      const scan = network.superValidators[0]!.scan
      expect(scan.updates.length).toBeGreaterThan(0)
      const first = Node.derivedIndexes(network, 1)
      expect(first.format).toBe(2)
      expect(first.scans[0]!.digest).toBe(formatTwo(scan))
      // the history grows (copies of entries, with new ids): the running digest takes in the new parts only
      const update = scan.updates.at(0)!
      const verdict = scan.verdictLog.at(0)
      for (let i = 0; i < 3; i++) {
        scan.updates.push({ ...update, offset: update.offset + 1000 + i, update: { ...update.update, updateId: `grown-${i}` } })
        if (verdict !== undefined) scan.verdictLog.push({ ...verdict, verdict: { ...verdict.verdict, updateId: `grown-${i}` } })
        const grown = Node.derivedIndexes(network, 2 + i)
        expect(grown.scans[0]!.digest).toBe(formatTwo(scan))
        expect(grown.scans[0]!.updates).toBe(scan.updates.length)
      }
      expect(Node.derivedIndexes(network, 9).scans[0]!.digest).not.toBe(first.scans[0]!.digest)
      const old = Node.derivedIndexes(network, 9, 1)
      expect(old).not.toHaveProperty("format")
      expect(old.scans[0]!.digest).toBe(formatOne(scan))
    })
  }, 60_000)
})
