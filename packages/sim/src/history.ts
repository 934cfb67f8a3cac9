/**
 * The history hash: one SHA-256 over every node's update history (each participant's committed
 * updates with their offsets, in order) and every scan's verdicts. Equal seeds must give equal
 * hashes on any machine; any difference in what happened changes it.
 *
 * Entries are serialized with JSON.stringify: the engine builds every object with its keys in a
 * fixed order, so the text is a deterministic function of the history (and ten times cheaper than
 * a canonical, key-sorted form). What goes into the running hash is each entry's SHA-256, not its
 * text: the same update object is shared by the nodes that saw all of it, and every scan holds
 * the same verdict and traffic summary objects, so each digest is computed once. (Until
 * 2026-11-29 the scans' verdict texts themselves went in: twenty scans' copies of every verdict,
 * about 1.2 GB of text at the end of the large scenario's bootstrap, 9% of its CPU profile.)
 */
import { runningHash, sha256Hex } from "@sandnet/core"
import type { CoinNetwork, ScanVerdict } from "@sandnet/engine"

const digests = new WeakMap<object, string>()
/** The SHA-256 of an immutable object's JSON text, once per object. */
const digestOf = (value: object): string => {
  let digest = digests.get(value)
  if (digest === undefined) digests.set(value, (digest = sha256Hex(JSON.stringify(value))))
  return digest
}

const entryTexts = new WeakMap<ScanVerdict, string>()
/**
 * A scan entry { verdict, trafficSummary } by its shared parts' digests, once per entry: the scans
 * share their entries too (every super validator's scan holds the same entry object for a verdict
 * it ingested within the last few thousand), so twenty scans' copies cost one text.
 */
const verdictDigests = (entry: ScanVerdict): string => {
  let text = entryTexts.get(entry)
  if (text === undefined) entryTexts.set(entry, (text = `${digestOf(entry.verdict)}:${digestOf(entry.trafficSummary)}`))
  return text
}

export const historyHash = (network: CoinNetwork): string => {
  const hash = runningHash()
  for (const node of network.participants) {
    hash.update(`participant ${node.logic.uid} ${node.logic.log.length}`)
    for (const entry of node.logic.log) hash.update(`${entry.offset}:${digestOf(entry.update)}`)
  }
  for (const sv of network.superValidators) {
    hash.update(`scan ${sv.name} ${sv.scan.verdictLog.length}`)
    for (const entry of sv.scan.verdictLog) hash.update(verdictDigests(entry))
  }
  return hash.digest()
}
