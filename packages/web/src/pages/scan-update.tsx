/** One update in the explorer: its verdict, traffic and event tree. */
import { scan, type EventItem, type TreeEvent, type UpdateItem } from "../api.ts"
import { entityOf } from "../format.ts"
import { useLoad } from "../live.ts"
import { Card, Empty, ErrorNote, Id, Time } from "../ui.tsx"

export const VerdictBadge = (props: { readonly item: EventItem }) => {
  const result = props.item.verdict?.verdict_result
  if (result === undefined) return <span class="badge">no verdict</span>
  const accepted = result === "VERDICT_RESULT_ACCEPTED"
  return <span class={`badge ${accepted ? "ok" : "bad"}`}>{accepted ? "accepted" : result === "VERDICT_RESULT_REJECTED" ? "rejected" : "unspecified"}</span>
}

/** What an update did, in a few words: its root events' choices and templates. */
export const summaryOf = (update: UpdateItem | undefined): string => {
  if (update === undefined) return "(not visible to the DSO)"
  if (update.events_by_id === undefined) return "reassignment"
  return (update.root_event_ids ?? [])
    .map((id) => update.events_by_id?.[id])
    .map((e) => (e === undefined ? "" : e.event_type === "created_event" ? `create ${entityOf(e.template_id)}` : `${e.choice ?? "exercise"} on ${entityOf(e.template_id)}`))
    .join(", ")
}

const EventNode = (props: { readonly id: string; readonly events: Readonly<Record<string, TreeEvent>> }) => {
  const e = props.events[props.id]
  if (e === undefined) return null
  const created = e.event_type === "created_event"
  return (
    <li>
      <details open>
        <summary>
          <span class={`badge ${created ? "ok" : e.consuming === true ? "bad" : ""}`}>{created ? "create" : e.consuming === true ? "consuming" : "exercise"}</span>{" "}
          <strong>{created ? entityOf(e.template_id) : e.choice}</strong> {created ? null : <span class="muted">on {entityOf(e.template_id)}</span>}
        </summary>
        <p class="event-contract">
          Contract <Id value={e.contract_id} kind="contract id" />
        </p>
        <pre class="json" tabIndex={0} aria-label={`${created ? "Create arguments" : "Choice argument and result"} of event ${e.event_id}`}>{JSON.stringify(created ? e.create_arguments : { argument: e.choice_argument, result: e.exercise_result, acting: e.acting_parties }, null, 2)}</pre>
        {(e.child_event_ids ?? []).length === 0 ? null : (
          <ul class="tree">
            {e.child_event_ids?.map((c) => <EventNode key={c} id={c} events={props.events} />)}
          </ul>
        )}
      </details>
    </li>
  )
}

const TrafficSummary = (props: { readonly item: EventItem }) => {
  const t = props.item.traffic_summary
  if (t === undefined) return <Empty>No traffic summary.</Empty>
  return (
    <dl class="kv">
      <dt>Total cost</dt>
      <dd>{t.total_traffic_cost.toLocaleString("en")} bytes</dd>
      {t.envelope_traffic_summaries.map((env, i) => (
        <>
          <dt key={`e${i}`}>Envelope {i + 1}</dt>
          <dd key={`d${i}`}>
            {env.traffic_cost.toLocaleString("en")} bytes, views {env.view_ids.join(", ")}
          </dd>
        </>
      ))}
    </dl>
  )
}

export const UpdatePage = (props: { readonly updateId: string }) => {
  const event = useLoad(() => scan.event(props.updateId), [props.updateId])
  const item = event.data
  const update = item?.update
  return (
    <>
      <h1>
        Update <Id value={props.updateId} kind="update id" />
      </h1>
      <ErrorNote error={event.error} />
      {item === undefined ? null : (
        <div class="grid">
          <Card title="Verdict">
            <p class="big" data-testid="verdict">
              <VerdictBadge item={item} />
            </p>
            <dl class="kv">
              <dt>Record time</dt>
              <dd>
                <Time iso={item.verdict?.record_time ?? update?.record_time} />
              </dd>
              <dt>Submitted by</dt>
              <dd>{item.verdict?.submitting_parties.map((p) => <Id key={p} value={p} kind="party" href={`/scan/party/${encodeURIComponent(p)}`} />) ?? "—"}</dd>
              <dt>What</dt>
              <dd>{summaryOf(update)}</dd>
            </dl>
          </Card>
          <Card title="Traffic">
            <TrafficSummary item={item} />
          </Card>
          <Card title="Event tree" wide>
            {update?.events_by_id === undefined ? (
              <Empty>No events visible to the DSO.</Empty>
            ) : (
              <ul class="tree">{update.root_event_ids?.map((id) => <EventNode key={id} id={id} events={update.events_by_id!} />)}</ul>
            )}
          </Card>
        </div>
      )}
    </>
  )
}
