/**
 * The node's journals in the EventStore: the names of its streams and the body of a journal entry.
 * See docs/storage.md ("The node's journals").
 *
 * Streams (one journal per actor; every body is `{ n, event }` where `n` is a node-wide ordinal,
 * so that replay can interleave the streams exactly as they were produced):
 *
 *   participant/<name>   ParticipantEvents (parties, commands submitted/completed, commits)
 *   scan/<sv>            verdicts the SV's scan ingested (duplicates included)
 *   wallet/<validator>   the wallet's journal (users, tracking ids, offers, ...)
 *   ledger               legacy: uploaded packages and external parties' keys of old stores
 *                        (now in the participants' journals); read by replay, never written
 *   admin                user management (users, rights, identity providers)
 *
 * Key-value area (snapshots): `runtime` (network config, time offset, last engine time),
 * `sequencer/<synchronizer>` (last timestamp and traffic of every member, one upsert per write
 * batch that changed it), `derived/<...>` (the derived indexes: ACS per participant, scan and
 * wallet digests, checked by `sandnet rebuild`), `index/...` (the stored ACS and scan indexes),
 * `checkpoint` (the engine checkpoint a restart starts from, checkpoint/stored.ts).
 */
export const Streams = {
  participant: (name: string) => `participant/${name}`,
  scan: (sv: string) => `scan/${sv}`,
  wallet: (validator: string) => `wallet/${validator}`,
  sequencer: (synchronizer: string) => `sequencer/${synchronizer}`,
  ledger: "ledger",
  admin: "admin",
  runtime: "runtime",
  derived: "derived",
  /** Key-value only: the engine checkpoint (checkpoint/stored.ts), key `engine`. */
  checkpoint: "checkpoint",
  /** Key-value only: a node's active contracts, key = contract id, body = the ActiveContract. */
  acsIndex: (node: string) => `index/acs/${node}`,
  /** Key-value only: the updates a super validator's scan serves, key = update id (ScanIndexRow). */
  scanIndex: (sv: string) => `index/scan/${sv}`
} as const

/** Streams that belong to the engine (a reset or a restore replaces them); `admin` is not one of them. */
export const isEngineStream = (stream: string): boolean => stream !== Streams.admin

export interface JournalBody {
  /** Node-wide ordinal: replay merges the streams in this order. */
  readonly n: number
  readonly event: unknown
}

export const isBody = (body: unknown): body is JournalBody =>
  typeof body === "object" && body !== null && typeof (body as { n?: unknown }).n === "number" && "event" in body
