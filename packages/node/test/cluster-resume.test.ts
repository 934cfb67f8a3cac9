/**
 * A cluster process restored from its engine checkpoint follows the other nodes' journals on from
 * the positions the checkpoint holds (cluster/link.ts `resumeFollowing`), once it has checked that
 * each stream still holds the last entry followed; otherwise the checkpoint is given up (the start
 * replays and follows everything again). The transport here is a stand-in that answers reads from
 * lists of entries: the real one's reads are store/test/cluster.test.ts's.
 */
import { defaultCoinNetworkConfig } from "@sandnet/engine"
import { SIMULATION_EPOCH } from "@sandnet/core"
import type { ClusterTransportService, JournalEntry, JournalRead } from "@sandnet/store"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

/** Journals by schema and stream, each a run of entries 1..n. */
const journalsOf = (lengths: Record<string, number>) =>
  new Map(
    Object.entries(lengths).map(([key, n]) => [key, Array.from({ length: n }, (_, i): JournalEntry => ({ stream: key.split("|")[1]!, seq: i + 1, kind: "K", body: {} }))] as const)
  )

const linkOver = async (lengths: Record<string, number>) => {
  const journals = journalsOf(lengths)
  const reads: Array<ReadonlyArray<JournalRead>> = []
  const read = (r: JournalRead, limit: number) => (journals.get(`${r.schema}|${r.stream}`) ?? []).filter((e) => e.seq >= r.fromSeq).slice(0, limit)
  const transport = {
    readJournals: (rs: ReadonlyArray<JournalRead>, limit: number) => Effect.sync(() => (reads.push(rs), rs.map((r) => read(r, limit))))
  } as unknown as ClusterTransportService
  const { network } = await Effect.runPromise(Node.replayNetwork({ ...defaultCoinNetworkConfig, name: "resume", superValidators: 1, validators: 2 }, SIMULATION_EPOCH))
  const link = new Node.ClusterLink({ transport, node: "validator2", schemaOf: (node) => `c_${node}` }, network, undefined)
  return { link, reads }
}

describe("a cluster process resuming from its checkpoint", () => {
  it("follows on from the checkpoint's positions when every stream still holds the last entry followed, checked in one read", async () => {
    const { link, reads } = await linkOver({ "c_sv1|participant/sv1": 40, "c_sv1|scan/sv1": 9, "c_validator1|participant/validator1": 12 })
    const positions = [["participant/sv1", 41], ["participant/validator1", 12], ["scan/sv1", 1]] as const
    expect(Either.isRight(await Effect.runPromise(Effect.either(link.resumeFollowing(positions))))).toBe(true)
    expect(link.followedPositions()).toEqual(positions)
    // one statement for the streams with something followed (a stream at entry 1 has nothing to check)
    expect(reads).toEqual([[{ schema: "c_sv1", stream: "participant/sv1", fromSeq: 40 }, { schema: "c_validator1", stream: "participant/validator1", fromSeq: 11 }]])
  })

  it("gives the checkpoint up when a stream no longer holds the last entry followed, or is no other node's", async () => {
    // validator1's schema dropped and made again: its journal is shorter than what the checkpoint followed
    const shorter = await linkOver({ "c_sv1|participant/sv1": 40, "c_validator1|participant/validator1": 3 })
    const failed = await Effect.runPromise(Effect.flip(shorter.link.resumeFollowing([["participant/sv1", 41], ["participant/validator1", 12]])))
    expect(failed.message).toBe("the engine checkpoint followed participant/validator1 to entry 11, which that node's journal no longer holds")
    expect(shorter.link.followedPositions()).toEqual([])
    const foreign = await linkOver({})
    expect((await Effect.runPromise(Effect.flip(foreign.link.resumeFollowing([["participant/validator2", 3]])))).message).toBe(
      "the engine checkpoint follows participant/validator2, which no other node of this network journals"
    )
  })
})
