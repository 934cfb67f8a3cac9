/**
 * A party's page in the explorer (`/scan/party/<party>`): its holdings in the latest ACS snapshot
 * (upstream's holdings summary), where it is hosted, its featured app right and transfer
 * preapproval, and its activity as the DSO saw it (updates it submitted, signed, observed or acted in).
 */
import { ApiError, sandnet, scan, type EventItem } from "../api.ts"
import { partyName } from "../format.ts"
import { useLive, useLoad } from "../live.ts"
import { Amount, Card, Empty, ErrorNote, Id, Time, useUnit } from "../ui.tsx"
import { updateIdOf, useEvents } from "./scan-feed.ts"
import { summaryOf, VerdictBadge } from "./scan-update.tsx"

/** The party's part in an update, the strongest first; undefined when it had none. */
export const roleIn = (item: EventItem, party: string): string | undefined => {
  if (item.verdict?.submitting_parties.includes(party) === true) return "submitter"
  const events = Object.values(item.update?.events_by_id ?? {})
  if (events.some((e) => e.acting_parties?.includes(party) === true)) return "actor"
  if (events.some((e) => e.signatories?.includes(party) === true)) return "signatory"
  if (events.some((e) => e.observers?.includes(party) === true)) return "observer"
  return undefined
}

/** The party's holdings in the newest snapshot at or before the ledger time, or why there are none. */
const loadHoldings = async (party: string, ledgerTime: string | undefined) => {
  if (ledgerTime === undefined) return undefined
  const overview = await sandnet.overview()
  const migration = overview.synchronizers[0]?.migration_id ?? 0
  try {
    const answer = await scan.holdingsSummary(migration, ledgerTime, [party])
    return { answer, summary: answer.summaries.find((s) => s.party_id === party) }
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return "none" as const
    throw e
  }
}

const HoldingsCard = (props: { readonly party: string; readonly ledgerTime: string | undefined; readonly version: number }) => {
  const unit = useUnit()
  // Snapshots change at most once an hour of record time: read again on each change notice.
  const holdings = useLoad(() => loadHoldings(props.party, props.ledgerTime), [props.party, props.version])
  const h = holdings.data
  return (
    <Card title="Holdings">
      <ErrorNote error={holdings.error} />
      {h === undefined ? null : h === "none" ? (
        <Empty>No ACS snapshot yet: the scan takes one at its first update and at every full hour of record time.</Empty>
      ) : (
        <>
          <p class="big" data-testid="party-available">
            <Amount value={h.summary?.total_available_coin} unit={unit} />
          </p>
          <dl class="kv">
            <dt>Unlocked</dt>
            <dd>
              <Amount value={h.summary?.total_unlocked_coin} unit={unit} />
            </dd>
            <dt>Locked</dt>
            <dd>
              <Amount value={h.summary?.total_locked_coin} unit={unit} />
            </dd>
            <dt>Holding fees</dt>
            <dd>
              <Amount value={h.summary?.accumulated_holding_fees_total} unit={unit} /> <span class="muted">by round {h.answer.computed_as_of_round}</span>
            </dd>
          </dl>
          <p class="muted">
            Available coin (unlocked less fees) in the ACS snapshot of <Time iso={h.answer.record_time} />; snapshots are taken every full hour of record time.
          </p>
        </>
      )}
    </Card>
  )
}

const AboutCard = (props: { readonly party: string; readonly version: number }) => {
  const overview = useLoad(sandnet.overview, [])
  const apps = useLoad(scan.featuredApps, [props.version])
  const preapproval = useLoad(() => scan.preapproval(props.party).then((r) => r.transfer_preapproval, () => undefined), [props.party, props.version])
  const host = overview.data?.nodes.find((n) => n.parties.includes(props.party))
  const featured = apps.data?.find((a) => a.payload["provider"] === props.party)
  return (
    <Card title="About">
      <dl class="kv">
        <dt>Name</dt>
        <dd>{partyName(props.party)}</dd>
        <dt>Hosted on</dt>
        <dd>{host === undefined ? <span class="muted">another node</span> : `${host.name} (${host.role})`}</dd>
        <dt>Featured app</dt>
        <dd data-testid="party-featured">{featured === undefined ? "no" : <Id value={featured.contract_id} kind="contract id" />}</dd>
        <dt>Preapproval</dt>
        <dd data-testid="party-preapproval">
          {preapproval.data === undefined ? <span class="muted">none: send by transfer offer</span> : <Id value={preapproval.data.contract.contract_id} kind="contract id" />}
        </dd>
      </dl>
    </Card>
  )
}

const ActivityCard = (props: { readonly party: string; readonly events: ReadonlyArray<EventItem> }) => {
  const activity = props.events
    .map((e) => ({ e, role: roleIn(e, props.party) }))
    .filter((a) => a.role !== undefined)
    .slice(-50)
    .reverse()
  return (
    <Card title="Activity" wide>
      {activity.length === 0 ? (
        <Empty>No activity the DSO saw.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <caption class="sr-only">The party's 50 latest updates the DSO saw, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Record time</th>
                <th scope="col">Verdict</th>
                <th scope="col">Role</th>
                <th scope="col">What</th>
                <th scope="col">Update</th>
              </tr>
            </thead>
            <tbody>
              {activity.map(({ e, role }) => (
                <tr key={updateIdOf(e)} data-testid="party-activity">
                  <td>
                    <Time iso={e.update?.record_time ?? e.verdict?.record_time} />
                  </td>
                  <td>
                    <VerdictBadge item={e} />
                  </td>
                  <td>{role}</td>
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

export const PartyPage = (props: { readonly party: string }) => {
  const { state, version } = useLive()
  const events = useEvents(state?.generation, version)
  return (
    <>
      <h1>
        Party <Id value={props.party} kind="party" />
      </h1>
      <div class="grid">
        <HoldingsCard party={props.party} ledgerTime={state?.ledger_time} version={version} />
        <AboutCard party={props.party} version={version} />
        <ActivityCard party={props.party} events={events} />
      </div>
    </>
  )
}
