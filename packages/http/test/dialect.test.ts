/**
 * The name tables of the two dialects (packages/http/src/dialect/names.ts): the spec's names are
 * left alone; LocalNet's swap coin for amulet word by word in identifiers, and the two directions
 * undo each other on every name the engine uses.
 */
import { describe, expect, it } from "vitest"
import { TemplateRegistry } from "@sandnet/engine"
import { renameJson, specNames, upstreamNames } from "../src/dialect/index.ts"
import { startWalletNode } from "./wallet-support.ts"

describe("the upstream name table", () => {
  it.each([
    ["splice-coin", "splice-amulet"],
    ["#splice-coin:Splice.CoinRules:CoinRules", "#splice-amulet:Splice.AmuletRules:AmuletRules"],
    ["Splice.ExternalPartyCoinRules:ExternalPartyCoinRules", "Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules"],
    ["CoinRules_DevNet_Tap", "AmuletRules_DevNet_Tap"],
    ["LockedCoin_ExpireCoin", "LockedAmulet_ExpireAmulet"],
    ["coin_operation", "amulet_operation"],
    ["coinPrice", "amuletPrice"],
    ["locked_coins", "locked_amulets"],
    ["coin-rules", "amulet-rules"],
    ["Coin", "Amulet"]
  ])("renames %s to %s and back", (spec, upstream) => {
    expect(upstreamNames.outboundName(spec)).toBe(upstream)
    expect(upstreamNames.inboundName(upstream)).toBe(spec)
  })

  it.each(["bitcoin", "Coinbase", "coinage", "CC", "a coin transfer", "splice.lfdecentralizedtrust.org/reason", "00ab12cd", "x".repeat(300) + "Coin"])(
    "leaves %s alone",
    (text) => {
      expect(upstreamNames.outboundName(text)).toBe(text)
    }
  )

  it.each(["total_unlocked_coin", "total_locked_coin", "total_coin_holdings", "total_available_coin"])("keeps %s, a name upstream itself spells with coin", (name) => {
    expect(upstreamNames.outboundName(name)).toBe(name)
  })

  it("renames keys and strings of JSON, nothing else", () => {
    const json = { coinPrice: "0.005", instrumentId: { id: "Coin" }, amount: 5, lock: null, tags: ["InputCoin", true] }
    expect(renameJson(json, upstreamNames.outboundName)).toEqual({ amuletPrice: "0.005", instrumentId: { id: "Amulet" }, amount: 5, lock: null, tags: ["InputAmulet", true] })
  })

  it("undoes itself on every template, choice and package name of the engine, and the spec's table is the identity", async () => {
    const node = await startWalletNode()
    try {
      const registry: TemplateRegistry = (await node.engine()).network.registry
      const names = registry.all().flatMap((t) => [t.nameReference, t.templateId, t.pkg.name, ...[...t.choices.keys()]])
      expect(names.length).toBeGreaterThan(20)
      for (const name of names) {
        expect(upstreamNames.inboundName(upstreamNames.outboundName(name))).toBe(name)
        expect(specNames.outboundName(name)).toBe(name)
      }
      expect(names.map(upstreamNames.outboundName).filter((n) => /(^|[^A-Za-z])[Cc]oin(?![a-z])/.test(n))).toEqual([])
    } finally {
      await node.close()
    }
  })
})
