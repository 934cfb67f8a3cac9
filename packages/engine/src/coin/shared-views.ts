/**
 * Parts of interface views that are the same for many contracts, shared instead of built for each:
 * a live contract keeps its views (`interfaceViews` of its created node) as long as it lives, and
 * a holding's view was five objects, three of them always equal (about 90 bytes per live holding
 * or instruction of a 5-minute soak, `sandnet bench --only memory`). Views are values: the shared
 * parts are frozen, so a mutation throws instead of changing every contract's view.
 */
import type { Json } from "@sandnet/core"

/** The token standard's instrument id of the native coin. */
export const COIN_INSTRUMENT = "Coin"

const frozen = <J extends Json>(value: J): J => Object.freeze(value)

/** The token standard's empty metadata, `{ values: {} }`. */
export const EMPTY_META: Json = frozen({ values: frozen({}) })

/** A pending transfer instruction's status. */
export const PENDING_RECEIVER_ACCEPTANCE: Json = frozen({ tag: "TransferPendingReceiverAcceptance", value: frozen({}) })

/** The coin's instrument ids by DSO party: a network has one DSO, a process a few networks. */
const instrumentIds = new Map<string, Json>()
const INSTRUMENT_IDS_KEPT = 64

/** The coin's instrument id, `{ admin: dso, id: "Coin" }`. */
export const coinInstrumentId = (dso: string): Json => {
  const known = instrumentIds.get(dso)
  if (known !== undefined) return known
  if (instrumentIds.size >= INSTRUMENT_IDS_KEPT) instrumentIds.clear()
  const id = frozen({ admin: dso, id: COIN_INSTRUMENT })
  instrumentIds.set(dso, id)
  return id
}
