/**
 * Replay takes the wallets' journal events as written, checking their tag (journal/replay.ts): a
 * wallet journal entry that is not one of the wallet's events fails the replay with a message that
 * names the entry, instead of reaching the wallet.
 */
import { SIMULATION_EPOCH } from "@sandnet/core"
import { defaultCoinNetworkConfig } from "@sandnet/engine"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import * as Node from "../src/index.ts"

const replayed = (event: unknown) =>
  Effect.runPromise(
    Effect.map(Node.replayNetwork(defaultCoinNetworkConfig, SIMULATION_EPOCH), ({ replay }) =>
      replay([{ stream: Node.Streams.wallet("validator1"), seq: 1, kind: "Event", body: { n: 1, event } }])
    )
  )

describe("replay of the wallets' journals", () => {
  it("collects the wallet's events for the wallet and names an entry that is not one", async () => {
    const onboarded = { _tag: "UserOnboarded", user: "alice", party: "alice::1220", at: 1 }
    const ok = await replayed(onboarded)
    expect(Either.isRight(ok) && ok.right.wallets.get("validator1")).toEqual([onboarded])
    for (const bad of [{ _tag: "NoSuchEvent" }, { user: "alice" }, null, "text"]) {
      const failed = await replayed(bad)
      expect(Either.isLeft(failed) && failed.left.message).toMatch(/^wallet\/validator1 #1: not a wallet event/)
    }
  }, 60_000)
})
