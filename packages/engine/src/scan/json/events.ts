/**
 * Event history items as scan renders them: update, verdict, traffic summary and app activity
 * records of an update id (S3).
 *
 * JSON rendering: it belongs to the HTTP layer and moves there with the rest of scan/json/.
 */
import { Either } from "effect"
import { toIso, uidWithoutPrefix, type AppActivityRecords, type TrafficSummary, type Verdict } from "@sandnet/core"
import type { UpdateNotFound } from "../errors.ts"
import type { ScanStore } from "../store.ts"
import { lookupEvent, type ScanEvent } from "../updates.ts"
import { renderUpdateV2, type UpdateHistoryItemV2Json } from "./updates.ts"
import type { RenderOptions } from "./values.ts"

export interface VerdictJson {
  readonly update_id: string
  readonly migration_id: number
  readonly domain_id: string
  readonly record_time: string
  readonly finalization_time: string
  readonly submitting_parties: ReadonlyArray<string>
  readonly submitting_participant_uid: string
  readonly verdict_result: Verdict["result"]
  readonly mediator_group: number
  readonly transaction_views: {
    readonly views: ReadonlyArray<{
      readonly view_id: number
      readonly informees: ReadonlyArray<string>
      readonly confirming_parties: ReadonlyArray<{ readonly parties: ReadonlyArray<string>; readonly threshold: number }>
      readonly sub_views: ReadonlyArray<number>
      readonly view_hash: string
    }>
    readonly root_views: ReadonlyArray<number>
  }
}

export interface TrafficSummaryJson {
  readonly total_traffic_cost: number
  readonly envelope_traffic_summaries: ReadonlyArray<{ readonly traffic_cost: number; readonly view_ids: ReadonlyArray<number> }>
}

export interface AppActivityRecordsJson {
  readonly round_number: number
  readonly records: ReadonlyArray<{ readonly party: string; readonly weight: number }>
}

export interface EventHistoryItemJson {
  readonly update?: UpdateHistoryItemV2Json
  readonly verdict?: VerdictJson
  readonly traffic_summary?: TrafficSummaryJson
  readonly app_activity_records?: AppActivityRecordsJson
}

export const renderVerdict = (verdict: Verdict): VerdictJson => ({
  update_id: verdict.updateId,
  migration_id: verdict.migrationId,
  domain_id: verdict.synchronizerId,
  record_time: toIso(verdict.recordTime),
  finalization_time: toIso(verdict.finalizationTime),
  submitting_parties: [...verdict.submittingParties],
  submitting_participant_uid: uidWithoutPrefix(verdict.submittingParticipantUid),
  verdict_result: verdict.result,
  mediator_group: verdict.mediatorGroup,
  transaction_views: {
    views: [...verdict.views]
      .sort((a, b) => a.viewId - b.viewId)
      .map((v) => ({
        view_id: v.viewId,
        informees: [...v.informees],
        confirming_parties: v.confirmingParties.map((q) => ({ parties: [...q.parties], threshold: q.threshold })),
        sub_views: [...v.subViews],
        view_hash: v.viewHash
      })),
    root_views: [...verdict.rootViews]
  }
})

export const renderTrafficSummary = (summary: TrafficSummary): TrafficSummaryJson => ({
  total_traffic_cost: summary.totalTrafficCost,
  envelope_traffic_summaries: summary.envelopes.map((e) => ({ traffic_cost: e.trafficCost, view_ids: [...e.viewIds] }))
})

export const renderAppActivityRecords = (records: AppActivityRecords): AppActivityRecordsJson => ({
  round_number: records.roundNumber,
  records: records.records.map((r) => ({ party: r.party, weight: r.weight }))
})

/** An event as the events endpoint renders it (absent parts are left out). */
export const renderEvent = (event: ScanEvent, options: RenderOptions): EventHistoryItemJson => ({
  ...(event.update === undefined ? {} : { update: renderUpdateV2(event.update, options) }),
  ...(event.verdict === undefined
    ? {}
    : { verdict: renderVerdict(event.verdict.verdict), traffic_summary: renderTrafficSummary(event.verdict.trafficSummary) }),
  ...(event.appActivity === undefined ? {} : { app_activity_records: renderAppActivityRecords(event.appActivity) })
})

/** S3: the event of an update id, rendered. */
export const eventById = (scan: ScanStore, updateId: string, options: RenderOptions): Either.Either<EventHistoryItemJson, UpdateNotFound> =>
  Either.map(lookupEvent(scan, updateId), (event) => renderEvent(event, options))
