/**
 * `/scan`, the explorer: rounds, supply and burn, recent updates with their verdicts, featured apps,
 * votes and ACS snapshots, and search by update id, contract id or party; `/scan/update/<id>` and
 * `/scan/party/<party>` show one update or one party.
 */
import { useState } from "preact/hooks"
import { sandnet, type EventItem } from "../api.ts"
import { useLive } from "../live.ts"
import { Card, Empty, ErrorNote, Id, navigate, Time } from "../ui.tsx"
import { updateIdOf, useEvents } from "./scan-feed.ts"
import { Governance, Snapshots } from "./scan-governance.tsx"
import { RoundsCard, SupplyCard } from "./scan-rounds.tsx"
import { PartyPage } from "./scan-party.tsx"
import { summaryOf, UpdatePage, VerdictBadge } from "./scan-update.tsx"

/** The update that created a contract, or else the latest that exercised it. */
const updateOfContract = (contractId: string, events: ReadonlyArray<EventItem>): string | undefined => {
  const touches = (e: EventItem, created: boolean) =>
    Object.values(e.update?.events_by_id ?? {}).some((ev) => ev.contract_id === contractId && (ev.event_type === "created_event") === created)
  const found = events.find((e) => touches(e, true)) ?? [...events].reverse().find((e) => touches(e, false))
  return found === undefined ? undefined : updateIdOf(found)
}

/**
 * Where a search leads: an update (by its id), the update that created a contract, or a party (by
 * its id, or by its name when one known party has it).
 */
const searchTarget = async (text: string, events: ReadonlyArray<EventItem>): Promise<string | undefined> => {
  const q = text.trim()
  if (/^1220[0-9a-f]{64}$/.test(q)) return `/scan/update/${q}`
  if (q.includes("::")) return `/scan/party/${encodeURIComponent(q)}`
  if (/^00[0-9a-f]{64}/.test(q)) {
    const updateId = updateOfContract(q, events)
    return updateId === undefined ? undefined : `/scan/update/${updateId}`
  }
  if (q === "") return undefined
  const overview = await sandnet.overview()
  const parties = [...new Set([...overview.nodes.flatMap((n) => n.parties), ...overview.users.map((u) => u.primary_party)])]
  const named = parties.filter((p) => p.split("::")[0]?.toLowerCase() === q.toLowerCase())
  return named.length === 1 ? `/scan/party/${encodeURIComponent(named[0]!)}` : undefined
}

const Search = (props: { readonly events: ReadonlyArray<EventItem> }) => {
  const [text, setText] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  return (
    <form
      class="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault()
        void searchTarget(text, props.events).then(
          (target) => {
            setError(target === undefined ? "Nothing found: enter an update id (1220…), a contract id (00…), a party (name::1220…) or a party's name" : undefined)
            if (target !== undefined) navigate(target)
          },
          (err: unknown) => setError(err instanceof Error ? err.message : String(err))
        )
      }}
    >
      <label for="scan-search" class="sr-only">
        Search by update id, contract id or party
      </label>
      <input id="scan-search" name="q" placeholder="Update id, contract id, party or name" value={text} onInput={(e) => setText(e.currentTarget.value)} spellcheck={false} />
      <button type="submit" class="btn primary">
        Search
      </button>
      <ErrorNote error={error} />
    </form>
  )
}

const RecentUpdates = (props: { readonly events: ReadonlyArray<EventItem> }) => {
  const recent = props.events.slice(-25).reverse()
  return (
    <Card title="Recent updates" wide>
      {recent.length === 0 ? (
        <Empty>No updates yet.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Record time</th>
                <th scope="col">Verdict</th>
                <th scope="col">What</th>
                <th scope="col">Update</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((e) => (
                <tr key={updateIdOf(e)}>
                  <td>
                    <Time iso={e.update?.record_time ?? e.verdict?.record_time} />
                  </td>
                  <td>
                    <VerdictBadge item={e} />
                  </td>
                  <td>{summaryOf(e.update)}</td>
                  <td>
                    <Id value={updateIdOf(e)} kind="update id" href={`/scan/update/${updateIdOf(e)}`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  )
}

const ScanHome = () => {
  const { state, version } = useLive()
  const events = useEvents(state?.generation, version)
  return (
    <>
      <div class="page-head">
        <h1>Scan</h1>
        <Search events={events} />
      </div>
      <div class="grid">
        <RoundsCard version={version} />
        <SupplyCard version={version} />
        <RecentUpdates events={events} />
        <Governance version={version} />
        <Snapshots ledgerTime={state?.ledger_time} />
      </div>
    </>
  )
}

export const ScanPage = (props: { readonly path: string }) => {
  const parts = props.path.split("/").filter((p) => p !== "")
  if (parts[1] === "update" && parts[2] !== undefined) return <UpdatePage updateId={decodeURIComponent(parts[2])} />
  if (parts[1] === "party" && parts[2] !== undefined) return <PartyPage party={decodeURIComponent(parts[2])} />
  return <ScanHome />
}
