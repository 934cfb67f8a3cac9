/**
 * The coin supply over time, for the scan page's chart: walking the scan's transactions in order,
 * the supply is the sum of the initial amounts of the active holdings (Coin and LockedCoin), the
 * minted coin is what taps and reward inputs created, and the burned coin is what was minted but
 * did not end up in a holding (holding fees of spent inputs, traffic purchases, dust), the same
 * accounting as the simulator's conservation invariant (docs/economy.md, "Conservation").
 *
 * The walk is incremental: a cache per scan keeps the active holdings' amounts and the running
 * totals, so a request only reads the updates ingested since the last one.
 */
import { amountOf, formatAmount, toIso, type ExercisedNode, type Micros } from "@sandnet/core"
import { Coin, LockedCoin, mintedByTransfer, type CoinPayload, type LockedCoinPayload, type ScanStore } from "@sandnet/engine"

export interface SupplyPoint {
  readonly recordTime: Micros
  readonly supply: bigint
  readonly minted: bigint
  readonly burned: bigint
}

interface SupplyWalk {
  cursor: number
  supply: bigint
  minted: bigint
  burned: bigint
  readonly holdings: Map<string, bigint>
  readonly points: Array<SupplyPoint>
}

const walks = new WeakMap<ScanStore, SupplyWalk>()

const mintedBy = (node: ExercisedNode): bigint => {
  if (node.choice === "CoinRules_DevNet_Tap") return amountOf(String((node.choiceArgument as { amount?: unknown }).amount ?? "0"))
  if (node.choice === "CoinRules_Transfer") return mintedByTransfer(node.exerciseResult)
  return 0n
}

const initialAmountOf = (templateId: string, payload: unknown): bigint | undefined => {
  if (templateId === Coin.templateId) return amountOf((payload as CoinPayload).amount.initialAmount)
  if (templateId === LockedCoin.templateId) return amountOf((payload as LockedCoinPayload).coin.amount.initialAmount)
  return undefined
}

const step = (walk: SupplyWalk, scan: ScanStore): void => {
  const entry = scan.updates.at(walk.cursor++)!
  const update = entry.update
  if (update.kind !== "transaction") return
  let delta = 0n
  let minted = 0n
  for (const node of update.nodes) {
    if (node.kind === "created") {
      const amount = initialAmountOf(node.templateId, node.createArguments)
      if (amount !== undefined) {
        walk.holdings.set(node.contractId, amount)
        delta += amount
      }
      continue
    }
    minted += mintedBy(node)
    const consumed = node.consuming ? walk.holdings.get(node.contractId) : undefined
    if (consumed !== undefined) {
      walk.holdings.delete(node.contractId)
      delta -= consumed
    }
  }
  if (delta === 0n && minted === 0n) return
  walk.supply += delta
  walk.minted += minted
  walk.burned += minted - delta
  walk.points.push({ recordTime: update.recordTime, supply: walk.supply, minted: walk.minted, burned: walk.burned })
}

/** Every point of the scan's supply history (one per transaction that changed it). */
export const supplyHistory = (scan: ScanStore): ReadonlyArray<SupplyPoint> => {
  let walk = walks.get(scan)
  if (walk === undefined) {
    walk = { cursor: 0, supply: 0n, minted: 0n, burned: 0n, holdings: new Map(), points: [] }
    walks.set(scan, walk)
  }
  while (walk.cursor < scan.updates.length) step(walk, scan)
  return walk.points
}

/** At most `limit` points, evenly spread, the last one always kept. */
export const thin = <A>(points: ReadonlyArray<A>, limit: number): ReadonlyArray<A> => {
  if (points.length <= limit) return points
  const out: Array<A> = []
  const every = points.length / limit
  for (let i = 0; i < limit - 1; i++) out.push(points[Math.floor(i * every)]!)
  out.push(points[points.length - 1]!)
  return out
}

export const renderPoint = (p: SupplyPoint) => ({
  record_time: toIso(p.recordTime),
  total_supply: formatAmount(p.supply),
  cumulative_minted: formatAmount(p.minted),
  cumulative_burned: formatAmount(p.burned)
})
