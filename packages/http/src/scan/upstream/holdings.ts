/**
 * Upstream scan's holdings summaries (splice-scan.yaml of Splice 0.7.5), which the spec does not
 * name and the explorer's party page reads:
 *
 *   POST /v0/holdings/summary   getHoldingsSummaryAt     HoldingsSummaryRequest   -> HoldingsSummaryResponse
 *   POST /v1/holdings/summary   getHoldingsSummaryAtV1   HoldingsSummaryRequestV1 -> HoldingsSummaryResponseV1
 *
 * Summed by the engine from the scan's hourly ACS snapshots (ScanApi.holdingsSummaryAt).
 */
import { HttpApiEndpoint } from "@effect/platform"
import { formatAmount, parseIso, toIso } from "@sandnet/core"
import { ScanApi } from "@sandnet/engine"
import { Effect, Schema } from "effect"
import { InvalidRequest } from "../../errors.ts"
import { withScan } from "../engine.ts"
import { bind, Surfaces, mergeRoutes } from "../../surface.ts"

const RequestFields = {
  migration_id: Schema.Int,
  record_time: Schema.String.annotations({ description: "date-time: the snapshot's record time (exact), or any time (at_or_before)" }),
  record_time_match: Schema.optional(Schema.Literal("exact", "at_or_before")),
  owner_party_ids: Schema.Array(Schema.String).pipe(Schema.minItems(1))
}

export const HoldingsSummaryRequest = Schema.Struct({
  ...RequestFields,
  as_of_round: Schema.optional(Schema.Int.annotations({ description: "Compute holding fees as of this round. Defaults to the earliest open mining round." }))
}).annotations({ identifier: "HoldingsSummaryRequest" })

export const HoldingsSummaryRequestV1 = Schema.Struct(RequestFields).annotations({ identifier: "HoldingsSummaryRequestV1" })

const TotalFields = {
  party_id: Schema.String,
  total_unlocked_coin: Schema.String,
  total_locked_coin: Schema.String,
  total_coin_holdings: Schema.String
}

export const HoldingsSummary = Schema.Struct({
  ...TotalFields,
  accumulated_holding_fees_unlocked: Schema.String,
  accumulated_holding_fees_locked: Schema.String,
  accumulated_holding_fees_total: Schema.String,
  total_available_coin: Schema.String
}).annotations({ identifier: "HoldingsSummary" })

export const HoldingsSummaryV1 = Schema.Struct(TotalFields).annotations({ identifier: "HoldingsSummaryV1" })

export const HoldingsSummaryResponse = Schema.Struct({
  record_time: Schema.String,
  migration_id: Schema.Int,
  computed_as_of_round: Schema.Int,
  summaries: Schema.Array(HoldingsSummary)
}).annotations({ identifier: "HoldingsSummaryResponse" })

export const HoldingsSummaryResponseV1 = Schema.Struct({
  record_time: Schema.String,
  migration_id: Schema.Int,
  summaries: Schema.Array(HoldingsSummaryV1)
}).annotations({ identifier: "HoldingsSummaryResponseV1" })

export const GetHoldingsSummary = HttpApiEndpoint.post("getHoldingsSummaryAt", "/v0/holdings/summary")
  .setPayload(HoldingsSummaryRequest)
  .addSuccess(HoldingsSummaryResponse)

export const GetHoldingsSummaryV1 = HttpApiEndpoint.post("getHoldingsSummaryAtV1", "/v1/holdings/summary")
  .setPayload(HoldingsSummaryRequestV1)
  .addSuccess(HoldingsSummaryResponseV1)


type Request = typeof HoldingsSummaryRequest.Type

/** The engine's summaries of a request (its record time parsed; fees as of `as_of_round`). */
const summariesOf = (operation: string, payload: Request) =>
  Effect.gen(function* () {
    const recordTime = parseIso(payload.record_time)
    if (recordTime === undefined) {
      return yield* Effect.fail(new InvalidRequest({ location: "body", parameter: "record_time", detail: `expected an ISO-8601 date-time, got ${JSON.stringify(payload.record_time)}` }))
    }
    const query = { recordTime, match: payload.record_time_match ?? "exact", owners: [...new Set(payload.owner_party_ids)], asOfRound: payload.as_of_round }
    return yield* withScan(operation, (view) => ScanApi.holdingsSummaryAt(view.sv.scan, query))
  })

/**
 * `record_time` is the snapshot's (the same as the request's with `exact`); amounts are initial
 * amounts, fees those accrued by the round.
 */
const renderV1 = (s: ScanApi.HoldingsSummary) => ({
  party_id: s.party,
  total_unlocked_coin: formatAmount(s.unlocked),
  total_locked_coin: formatAmount(s.locked),
  total_coin_holdings: formatAmount(s.unlocked + s.locked)
})

const render = (s: ScanApi.HoldingsSummary) => ({
  ...renderV1(s),
  accumulated_holding_fees_unlocked: formatAmount(s.feesUnlocked),
  accumulated_holding_fees_locked: formatAmount(s.feesLocked),
  accumulated_holding_fees_total: formatAmount(s.feesUnlocked + s.feesLocked),
  total_available_coin: formatAmount(s.unlocked - s.feesUnlocked)
})

export const HoldingsRoutes = mergeRoutes(
  bind(Surfaces.scan, GetHoldingsSummary, ({ payload }) =>
    Effect.map(summariesOf("POST /api/scan/v0/holdings/summary", payload), (r) => ({
      record_time: toIso(r.snapshotTime),
      migration_id: payload.migration_id,
      computed_as_of_round: r.asOfRound,
      summaries: r.summaries.map(render)
    }))
  ),
  bind(Surfaces.scan, GetHoldingsSummaryV1, ({ payload }) =>
    Effect.map(summariesOf("POST /api/scan/v1/holdings/summary", { ...payload, as_of_round: undefined }), (r) => ({
      record_time: toIso(r.snapshotTime),
      migration_id: payload.migration_id,
      summaries: r.summaries.map(renderV1)
    }))
  )
)
