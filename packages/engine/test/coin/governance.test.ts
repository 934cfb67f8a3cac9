import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { micros } from "@sandnet/core"
import { Commands, DsoRules_CastVote, DsoRules_RequestVote, DsoView, FeaturedAppRight, VoteRequest, ScanApi } from "../../src/index.ts"
import { makeEconomy } from "../wallet/support.ts"

describe("votes", () => {
  it.effect("SVs vote; the DSO automation closes decided requests, applies accepted actions, and scan lists the results", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ superValidators: 4, validators: 1 })
      const svs = e.network.superValidators
      const provider = e.network.validators[0]!.operator
      const rules = DsoView.of(e.network).dsoRules()!.contract.created.contractId
      const request = (sv: number, reason: string, action: Parameters<typeof DsoRules_RequestVote.body>[2]["action"]) =>
        e.run(
          svs[sv]!.participant.submit({
            actAs: [svs[sv]!.operator],
            readAs: [e.network.dso],
            commandId: `request-${reason}`,
            commands: [Commands.exercise(DsoRules_RequestVote, rules, { requester: svs[sv]!.operator, action, reason: { url: reason, body: reason }, voteRequestTimeout: { microseconds: String(micros.hours(1)) }, targetEffectiveAt: null })]
          })
        )
      const vote = (sv: number, reason: string, accept: boolean) =>
        Effect.gen(function* () {
          const cid = [...svs[sv]!.participant.logic.acs.ofTemplate(VoteRequest.templateId, e.network.dso)].find((c) => (c.created.createArguments as { reason: { url: string } }).reason.url === reason)!.created.contractId
          yield* e.run(
            svs[sv]!.participant.submit({
              actAs: [svs[sv]!.operator],
              readAs: [e.network.dso],
              commandId: `vote-${reason}-${sv}`,
              commands: [Commands.exercise(DsoRules_CastVote, rules, { requestCid: cid, vote: { sv: svs[sv]!.operator, accept, reason: { url: reason, body: "" } } })]
            })
          )
          yield* e.settle
        })
      yield* request(0, "grant", { tag: "ARC_DsoRules", value: { dsoAction: { tag: "SRARC_GrantFeaturedAppRight", value: { provider } } } })
      yield* request(1, "nobody", { tag: "ARC_DsoRules", value: { dsoAction: { tag: "SRARC_GrantFeaturedAppRight", value: { provider: svs[1]!.operator } } } })
      yield* request(2, "refused", { tag: "ARC_DsoRules", value: { dsoAction: { tag: "SRARC_GrantFeaturedAppRight", value: { provider: svs[2]!.operator } } } })
      yield* e.settle
      yield* vote(1, "grant", true)
      yield* vote(2, "grant", true)
      yield* vote(0, "refused", false)
      yield* vote(1, "refused", false)
      // Decided ones close on the next tick; the undecided one when it expires (1h).
      yield* e.advance(micros.minutes(70))
      const rights = [...svs[0]!.participant.logic.acs.ofTemplate(FeaturedAppRight.templateId, e.network.dso)].map((c) => (c.created.createArguments as { provider: string }).provider)
      expect(rights).toEqual([provider])
      const page = Either.getOrThrow(ScanApi.listVoteResults(svs[3]!.scan, { limit: 10 }))
      const outcomes = page.dso_rules_vote_results.map((r) => [(r.request as { reason: { url: string } }).reason.url, (r.outcome as { tag: string }).tag])
      // Newest effective date first: the expired request closed last.
      expect(outcomes[0]).toEqual(["nobody", "VRO_Expired"])
      expect(outcomes.slice(1).sort()).toEqual([["grant", "VRO_Accepted"], ["refused", "VRO_Rejected"]])
      const accepted = Either.getOrThrow(ScanApi.listVoteResults(svs[3]!.scan, { limit: 10, accepted: true, actionName: "SRARC_GrantFeaturedAppRight" }))
      expect(accepted.dso_rules_vote_results).toHaveLength(1)
      expect(accepted.dso_rules_vote_results[0]!.outcome).toMatchObject({ tag: "VRO_Accepted" })
    })
  )
})
