/**
 * DSO governance (package splice-dso-governance) and the name service rules.
 *
 * DsoRules lists the super validators. An SV requests a vote on an action (its own vote counts as
 * accept); every SV casts a vote before voteBefore; the DSO's automation closes the request once it
 * is decided or expired. The close's result (DsoRules_CloseVoteRequestResult) is the vote result
 * that scan lists: the request, completedAt, abstainers and the outcome (accepted with its
 * effectiveAt, rejected, or expired). An accepted action takes effect in the same transaction.
 *
 * A request is accepted with ceil(2n/3) accepting votes of n SVs, rejected once more than
 * n - ceil(2n/3) rejected it, and expired when voteBefore passes undecided.
 */
import { Schema } from "effect"
import { Bool, ContractIdRef, Numeric, Party, Text, Timestamp, parseIso, toIso, type Json, type PartyId } from "@sandnet/core"
import { defineChoice, defineTemplate, type UpdateContext } from "../ledger/template.ts"
import { DsoGovernancePackage, NameServicePackage } from "./packages.ts"
import { FeaturedAppRight } from "./rewards.ts"
import { RelTime } from "./schemas.ts"

export const SvInfo = Schema.Struct({ sv: Party, name: Text })

export const DsoRulesPayload = Schema.Struct({
  dso: Party,
  epoch: Schema.String,
  svs: Schema.Array(SvInfo),
  config: Schema.Struct({ voteRequestTimeout: RelTime }),
  isDevNet: Bool
})
export type DsoRulesPayload = typeof DsoRulesPayload.Type

export const DsoRules = defineTemplate({
  pkg: DsoGovernancePackage,
  module: "Splice.DsoRules",
  entity: "DsoRules",
  payload: DsoRulesPayload,
  signatories: (p) => [p.dso],
  observers: (p) => p.svs.map((s) => s.sv)
})

/** The actions SVs can vote on (Splice's ActionRequiringConfirmation, the ones Sandnet executes). */
export const DsoRulesAction = Schema.Union(
  Schema.Struct({ tag: Schema.Literal("SRARC_GrantFeaturedAppRight"), value: Schema.Struct({ provider: Party }) }),
  Schema.Struct({ tag: Schema.Literal("SRARC_RevokeFeaturedAppRight"), value: Schema.Struct({ rightCid: ContractIdRef }) })
)
export type DsoRulesAction = typeof DsoRulesAction.Type

export const ActionRequiringConfirmation = Schema.Struct({
  tag: Schema.Literal("ARC_DsoRules"),
  value: Schema.Struct({ dsoAction: DsoRulesAction })
})
export type ActionRequiringConfirmation = typeof ActionRequiringConfirmation.Type

/** The name scan filters vote results by (the inner action's constructor). */
export const actionName = (action: ActionRequiringConfirmation): string => action.value.dsoAction.tag

export const Reason = Schema.Struct({ url: Text, body: Text })
export const Vote = Schema.Struct({ sv: Party, accept: Bool, reason: Reason, optCastAt: Schema.NullOr(Timestamp) })
export type Vote = typeof Vote.Type

export const VoteRequestPayload = Schema.Struct({
  dso: Party,
  /** The requesting SV's name. */
  requester: Text,
  action: ActionRequiringConfirmation,
  reason: Reason,
  voteBefore: Timestamp,
  /** Votes by SV name. */
  votes: Schema.Record({ key: Schema.String, value: Vote }),
  trackingCid: Schema.NullOr(ContractIdRef),
  targetEffectiveAt: Schema.NullOr(Timestamp)
})
export type VoteRequestPayload = typeof VoteRequestPayload.Type

export const VoteRequest = defineTemplate({
  pkg: DsoGovernancePackage,
  module: "Splice.DsoRules",
  entity: "VoteRequest",
  payload: VoteRequestPayload,
  signatories: (p) => [p.dso],
  observers: (p) => Object.values(p.votes).map((v) => v.sv)
})

const svNamed = (rules: DsoRulesPayload, party: PartyId): string | undefined => rules.svs.find((s) => s.sv === party)?.name

/** Votes needed to accept (two thirds of the SVs, rounded up). */
export const requiredNumVotes = (svs: number): number => Math.ceil((2 * svs) / 3)

export type VoteOutcome = "accepted" | "rejected" | "undecided"

export const voteOutcome = (request: VoteRequestPayload, svs: number): VoteOutcome => {
  const votes = Object.values(request.votes)
  const accepts = votes.filter((v) => v.accept).length
  const rejects = votes.length - accepts
  const required = requiredNumVotes(svs)
  if (accepts >= required) return "accepted"
  if (rejects > svs - required) return "rejected"
  return "undecided"
}

export const DsoRules_RequestVote = defineChoice(DsoRules, {
  name: "DsoRules_RequestVote",
  consuming: false,
  argument: Schema.Struct({ requester: Party, action: ActionRequiringConfirmation, reason: Reason, voteRequestTimeout: Schema.NullOr(RelTime), targetEffectiveAt: Schema.NullOr(Timestamp) }),
  controllers: (_p, arg) => [arg.requester],
  body: (ctx, self, arg): Json => {
    const name = svNamed(self.payload, arg.requester)
    if (name === undefined) return ctx.fail(`${arg.requester} is not a super validator`)
    const timeout = Number((arg.voteRequestTimeout ?? self.payload.config.voteRequestTimeout).microseconds)
    ctx.require(timeout > 0, "the vote request timeout is positive")
    const now = toIso(ctx.ledgerTime)
    const voteRequestCid = ctx.create(VoteRequest, {
      dso: self.payload.dso,
      requester: name,
      action: arg.action,
      reason: arg.reason,
      voteBefore: toIso(ctx.ledgerTime + timeout),
      votes: { [name]: { sv: arg.requester, accept: true, reason: arg.reason, optCastAt: now } },
      trackingCid: null,
      targetEffectiveAt: arg.targetEffectiveAt
    })
    return { voteRequestCid }
  }
})

export const DsoRules_CastVote = defineChoice(DsoRules, {
  name: "DsoRules_CastVote",
  consuming: false,
  argument: Schema.Struct({ requestCid: ContractIdRef, vote: Schema.Struct({ sv: Party, accept: Bool, reason: Reason }) }),
  controllers: (_p, arg) => [arg.vote.sv],
  body: (ctx, self, arg): Json => {
    const name = svNamed(self.payload, arg.vote.sv)
    if (name === undefined) return ctx.fail(`${arg.vote.sv} is not a super validator`)
    const request = ctx.fetch(VoteRequest, arg.requestCid).payload
    ctx.require(ctx.ledgerTime < (parseIso(request.voteBefore) ?? 0), "the vote request has expired")
    ctx.archive(VoteRequest, arg.requestCid)
    const voteRequestCid = ctx.create(VoteRequest, {
      ...request,
      votes: { ...request.votes, [name]: { ...arg.vote, optCastAt: toIso(ctx.ledgerTime) } }
    })
    return { voteRequestCid }
  }
})

const execute = (ctx: UpdateContext, dso: PartyId, action: ActionRequiringConfirmation): Json => {
  const a = action.value.dsoAction
  switch (a.tag) {
    case "SRARC_GrantFeaturedAppRight":
      return { featuredAppRightCid: ctx.create(FeaturedAppRight, { dso, provider: a.value.provider }) }
    case "SRARC_RevokeFeaturedAppRight":
      ctx.archive(FeaturedAppRight, a.value.rightCid)
      return {}
  }
}

export const DsoRules_CloseVoteRequest = defineChoice(DsoRules, {
  name: "DsoRules_CloseVoteRequest",
  consuming: false,
  argument: Schema.Struct({ requestCid: ContractIdRef }),
  controllers: (p) => [p.dso],
  body: (ctx, self, arg): Json => {
    const request = ctx.fetch(VoteRequest, arg.requestCid).payload
    const decided = voteOutcome(request, self.payload.svs.length)
    const expired = (parseIso(request.voteBefore) ?? 0) <= ctx.ledgerTime
    ctx.require(decided !== "undecided" || expired, "the vote request is neither decided nor expired")
    ctx.archive(VoteRequest, arg.requestCid)
    const completedAt = toIso(ctx.ledgerTime)
    let outcome: Json
    if (decided === "accepted") {
      execute(ctx, self.payload.dso, request.action)
      outcome = { tag: "VRO_Accepted", value: { effectiveAt: completedAt } }
    } else if (decided === "rejected") outcome = { tag: "VRO_Rejected", value: {} }
    else outcome = { tag: "VRO_Expired", value: {} }
    const abstainingSvs = self.payload.svs.filter((s) => request.votes[s.name] === undefined).map((s) => s.sv)
    return { request: request as unknown as Json, completedAt, offboarded: [], abstainingSvs, outcome }
  }
})

// ---------------------------------------------------------------- name service

export const AnsRulesPayload = Schema.Struct({
  dso: Party,
  config: Schema.Struct({ renewalDuration: RelTime, entryLifetime: RelTime, entryFee: Numeric, descriptionPrefix: Text })
})
export type AnsRulesPayload = typeof AnsRulesPayload.Type

/** The name service's rules (entry fee in USD, lifetimes); scan serves the current contract. */
export const AnsRules = defineTemplate({
  pkg: NameServicePackage,
  module: "Splice.Ans",
  entity: "AnsRules",
  payload: AnsRulesPayload,
  signatories: (p) => [p.dso]
})
