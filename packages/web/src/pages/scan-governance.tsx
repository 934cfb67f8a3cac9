/**
 * The explorer's governance and archive cards: featured apps, the DSO's open vote requests (action,
 * requester, reason, votes so far, deadline) and vote results (action, outcome, when), and the ACS
 * snapshots to download (the latest and the ones before it).
 */
import { scan, type Contract, type Json, type JsonObject } from "../api.ts"
import { field, payloadTime } from "../format.ts"
import { useLoad } from "../live.ts"
import { Card, Empty, ErrorNote, Id, Time } from "../ui.tsx"

const asObject = (v: Json | undefined): JsonObject | undefined => (v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined)

/** The DSO action a vote is about: `SRARC_GrantFeaturedAppRight`, ... */
const actionOf = (request: JsonObject | undefined): string =>
  field(request, "action", "value", "dsoAction", "tag") ?? field(request, "action", "tag") ?? "action"

const OUTCOMES: Readonly<Record<string, { readonly text: string; readonly tone: string }>> = {
  VRO_Accepted: { text: "accepted", tone: "ok" },
  VRO_Rejected: { text: "rejected", tone: "bad" },
  VRO_Expired: { text: "expired", tone: "" }
}

const VoteRequestRow = (props: { readonly request: Contract }) => {
  const p = props.request.payload
  const votes = Object.values(asObject(p["votes"]) ?? {}).map(asObject)
  const accepting = votes.filter((v) => v?.["accept"] === true).length
  return (
    <tr data-testid="vote-request">
      <td>{actionOf(p)}</td>
      <td>{String(p["requester"] ?? "")}</td>
      <td>{field(p, "reason", "body") ?? ""}</td>
      <td class="num">
        {accepting} / {votes.length}
      </td>
      <td>
        <Time iso={payloadTime(p["voteBefore"])} />
      </td>
    </tr>
  )
}

const VoteRequests = (props: { readonly version: number }) => {
  const requests = useLoad(scan.voteRequests, [props.version])
  const list = requests.data ?? []
  return (
    <>
      <ErrorNote error={requests.error} />
      <h3>Open requests</h3>
      {list.length === 0 ? (
        <Empty>None.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Requester</th>
                <th scope="col">Reason</th>
                <th scope="col" class="num">Accepting</th>
                <th scope="col">Vote before</th>
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <VoteRequestRow key={r.contract_id} request={r} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}

const VoteResults = (props: { readonly version: number }) => {
  const results = useLoad(scan.voteResults, [props.version])
  const list = results.data ?? []
  return (
    <>
      <ErrorNote error={results.error} />
      <h3>Results</h3>
      {list.length === 0 ? (
        <Empty>None.</Empty>
      ) : (
        <ul class="plain">
          {list.map((r, i) => {
            const outcome = OUTCOMES[field(r, "outcome", "tag") ?? ""] ?? { text: "closed", tone: "" }
            return (
              <li key={i} data-testid="vote-result">
                <span class={`badge ${outcome.tone}`}>{outcome.text}</span> {actionOf(asObject(r["request"]))} · <Time iso={String(r["completedAt"] ?? "")} />
              </li>
            )
          })}
        </ul>
      )}
    </>
  )
}

export const Governance = (props: { readonly version: number }) => {
  const apps = useLoad(scan.featuredApps, [props.version])
  return (
    <>
      <Card title="Featured apps">
        <ErrorNote error={apps.error} />
        {(apps.data ?? []).length === 0 ? (
          <Empty>No featured apps.</Empty>
        ) : (
          <ul class="plain">
            {apps.data?.map((a) => (
              <li key={a.contract_id}>
                <Id value={String(a.payload["provider"])} kind="party" href={`/scan/party/${encodeURIComponent(String(a.payload["provider"]))}`} />
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Votes">
        <VoteRequests version={props.version} />
        <VoteResults version={props.version} />
      </Card>
    </>
  )
}

/** The latest snapshots at or before `at`, newest first: each found by asking just before the previous one. */
const loadSnapshots = async (at: string, count: number) => {
  const found: Array<{ readonly record_time: string; readonly object_refs: ReadonlyArray<{ readonly url: string; readonly digest: string }> }> = []
  let before = at
  for (let i = 0; i < count; i++) {
    const snapshot = await scan.acsSnapshot(before).catch(() => undefined)
    if (snapshot === undefined) break
    found.push(snapshot)
    before = new Date(Date.parse(snapshot.record_time) - 1).toISOString()
  }
  return found
}

export const Snapshots = (props: { readonly ledgerTime: string | undefined }) => {
  // Snapshots are hourly: read again when the hour of the ledger time changes.
  const snapshots = useLoad(() => (props.ledgerTime === undefined ? Promise.resolve([]) : loadSnapshots(props.ledgerTime, 5)), [props.ledgerTime?.slice(0, 13)])
  const list = snapshots.data ?? []
  return (
    <Card title="ACS snapshots">
      {list.length === 0 ? (
        <Empty>No snapshot yet (one is taken at the first update's record time and at every full hour).</Empty>
      ) : (
        <ul class="plain" aria-label="ACS snapshots, newest first">
          {list.map((s) => (
            <li key={s.record_time}>
              <Time iso={s.record_time} />
              {s.object_refs.map((o) => (
                <div key={o.url}>
                  <a href={o.url} download>
                    {o.url.slice(o.url.lastIndexOf("/") + 1)}
                  </a>{" "}
                  <span class="muted">sha256 {o.digest.slice(0, 12)}…</span>
                </div>
              ))}
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}
