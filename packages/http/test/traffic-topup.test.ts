/**
 * A serving node's validator buys traffic as LocalNet's validators do (Node.servingWalletConfig,
 * what `sandnet start` runs: 20,000 bytes per second, at most one top-up a minute): once its extra
 * traffic runs low, its wallet automation buys 1.2 MB (tapping coin on this development network)
 * and scan's traffic status shows the purchase; at most once per minute.
 */
import { micros } from "@sandnet/core"
import * as Node from "@sandnet/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support.ts"
import { startWalletNode, type WalletTestNode } from "./wallet-support.ts"

let node: WalletTestNode
beforeAll(async () => {
  node = await startWalletNode({ walletConfig: Node.servingWalletConfig("operator") })
}, 60_000)
afterAll(() => node.close())

interface TrafficStatus {
  readonly traffic_status: { readonly actual: { readonly total_consumed: number; readonly total_limit: number }; readonly target: { readonly total_purchased: number } }
}

describe("traffic top-up of a serving node's validator", () => {
  it("buys 1.2 MB once its extra traffic runs low, and at most once a minute", async () => {
    const engine = await node.engine()
    const participant = engine.network.validators[0]!.participant.logic.uid
    const synchronizer = engine.network.synchronizers[0]!
    const status = async () => {
      const answer = await call(`${node.url}/api/scan/v0/domains/${encodeURIComponent(synchronizer.info.synchronizerId)}/members/${encodeURIComponent(participant)}/traffic-status`)
      expect(answer.status, `${participant} ${answer.text}`).toBe(200)
      return (answer.json as TrafficStatus).traffic_status
    }
    const granted = (await status()).actual.total_limit
    // a busy validator: all but 100 kB of its extra traffic spent
    const traffic = synchronizer.sequencer.logic.trafficOf(participant, await node.now())
    traffic.extraTrafficConsumed = traffic.extraTrafficLimit - 100_000
    await node.advance(micros.minutes(2))
    const topped = await status()
    expect(topped.actual.total_limit).toBe(granted + 1_200_000)
    expect(topped.target.total_purchased).toBe(granted + 1_200_000)
    // still low (1.3 MB left is above the top-up amount, so spend it again): one top-up per minute at most
    traffic.extraTrafficConsumed = traffic.extraTrafficLimit - 100_000
    await node.advance(micros.seconds(20))
    expect((await status()).actual.total_limit).toBe(granted + 1_200_000)
    await node.advance(micros.minutes(2))
    expect((await status()).actual.total_limit).toBe(granted + 2_400_000)
  }, 120_000)
})
