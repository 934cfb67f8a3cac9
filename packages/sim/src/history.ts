/**
 * The history hash: one SHA-256 over every node's update history (each participant's committed
 * updates with their offsets, in order) and every scan's verdicts. Equal seeds must give equal
 * hashes on any machine; any difference in what happened changes it.
 *
 * Entries are serialized with JSON.stringify: the engine builds every object with its keys in a
 * fixed order, so the text is a deterministic function of the history (and ten times cheaper than
 * a canonical, key-sorted form). The same update object is shared by the nodes that saw all of it,
 * so its digest is computed once; likewise every scan holds the same verdict and traffic summary
 * objects, so their text is computed once (the hashed text is the same as stringifying each scan's
 * entry).
 */
const digests = new WeakMap<object, string>()
const serialized = (update: object, offset: number): string => {
  let digest = digests.get(update)
  if (digest === undefined) digests.set(update, (digest = sha256Hex(JSON.stringify(update))))
  return `${offset}:${digest}`
}
import { runningHash, sha256Hex } from "@sandnet/core"
import type { CoinNetwork, ScanVerdict } from "@sandnet/engine"

const texts = new WeakMap<object, string>()
const textOf = (value: object): string => {
  let text = texts.get(value)
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)))
  return text
}
/** JSON.stringify(entry) for a scan entry { verdict, trafficSummary }, from the shared parts' texts. */
const verdictText = (entry: ScanVerdict): string => `{"verdict":${textOf(entry.verdict)},"trafficSummary":${textOf(entry.trafficSummary)}}`

export const historyHash = (network: CoinNetwork): string => {
  const hash = runningHash()
  for (const node of network.participants) {
    hash.update(`participant ${node.logic.uid} ${node.logic.log.length}`)
    for (const entry of node.logic.log) hash.update(serialized(entry.update, entry.offset))
  }
  for (const sv of network.superValidators) {
    hash.update(`scan ${sv.name} ${sv.scan.verdictLog.length}`)
    for (const entry of sv.scan.verdictLog) hash.update(verdictText(entry))
  }
  return hash.digest()
}
