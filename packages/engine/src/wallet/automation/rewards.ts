/**
 * Rewards: the automation collects the reward coupons and liveness records of its users and
 * operator once their round is issuing (minting coin in batches of 100 per collector), and records
 * the validator's liveness once per round.
 */
import { Effect } from "effect"
import type { ActiveContract, ContractId, Micros, PartyId } from "@sandnet/core"
import {
  AppRewardCoupon,
  CoinRules_Transfer,
  ValidatorLicense,
  ValidatorLicense_RecordValidatorLivenessActivity,
  ValidatorLivenessActivityRecord,
  ValidatorRewardCoupon,
  ValidatorRight,
  appRewardOwner,
  mintedByTransfer,
  type AppRewardCouponPayload,
  type TransferInput,
  type ValidatorLicensePayload,
  type ValidatorLivenessActivityRecordPayload,
  type ValidatorRewardCouponPayload,
  type ValidatorRightPayload
} from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import { payloadOf } from "../context.ts"
import { ok, type AutomationState, type Coupon } from "./state.ts"

/** Files a reward coupon or liveness record the wallet collects. */
export const fileCoupon = (auto: AutomationState, templateId: string, contractId: ContractId, args: unknown): void => {
  switch (templateId) {
    case ValidatorRewardCoupon.templateId: {
      const p = args as ValidatorRewardCouponPayload
      if (auto.hosts(p.user)) auto.coupons.set(contractId, { contractId, kind: "validator", round: Number(p.round.number), collector: auto.operator, readAs: p.user === auto.operator ? undefined : p.user })
      break
    }
    case AppRewardCoupon.templateId: {
      const owner = appRewardOwner(args as AppRewardCouponPayload)
      if (auto.hosts(owner)) auto.coupons.set(contractId, { contractId, kind: "app", round: Number((args as AppRewardCouponPayload).round.number), collector: owner, readAs: undefined })
      break
    }
    case ValidatorLivenessActivityRecord.templateId: {
      const p = args as ValidatorLivenessActivityRecordPayload
      if (p.validator === auto.operator) auto.coupons.set(contractId, { contractId, kind: "liveness", round: Number(p.round.number), collector: auto.operator, readAs: undefined })
      break
    }
  }
}

/** The templates `fileCoupon` files. */
export const COUPON_TEMPLATES: ReadonlySet<string> = new Set([ValidatorRewardCoupon.templateId, AppRewardCoupon.templateId, ValidatorLivenessActivityRecord.templateId])

/** Records the validator's liveness for the open round, once. */
export const recordLiveness = (auto: AutomationState, now: Micros, ref: { readonly round: ActiveContract; readonly roundNumber: number }): Effect.Effect<void> =>
  Effect.gen(function* () {
    const license = [...auto.wallet.participant.logic.acs.ofTemplate(ValidatorLicense.templateId, auto.operator)].find((c) => payloadOf<ValidatorLicensePayload>(c).validator === auto.operator)
    if (license === undefined) return
    const last = payloadOf<ValidatorLicensePayload>(license).faucetState?.lastReceivedFor
    if (last !== undefined && Number(last.number) >= ref.roundNumber) return
    void now
    yield* auto.run(
      [auto.operator],
      [],
      `auto:liveness:${ref.roundNumber}`,
      [Commands.exercise(ValidatorLicense_RecordValidatorLivenessActivity, license.created.contractId, { openRoundCid: ref.round.created.contractId })],
      [ref.round],
      [],
      ok(() => auto.stats.livenessRecorded++)
    )
  })

/** Mints the coupons of issuing rounds, per collector, in batches of 100. */
export const collectRewards = (auto: AutomationState, now: Micros, ref: { readonly rules: ActiveContract; readonly round: ActiveContract }): Effect.Effect<void> =>
  Effect.gen(function* () {
    const issuing = auto.wallet.dso.issuingRounds(now)
    if (issuing.length === 0 || auto.coupons.size === 0) return
    const issuingByRound = new Map(issuing.map((r) => [Number(r.payload.round.number), r]))
    // Coupons of issuing rounds, per collector (in the order they were registered).
    const byCollector = new Map<PartyId, Array<Coupon>>()
    for (const coupon of auto.coupons.values()) {
      if (!issuingByRound.has(coupon.round) || auto.wallet.isReserved(coupon.contractId)) continue
      let list = byCollector.get(coupon.collector)
      if (list === undefined) byCollector.set(coupon.collector, (list = []))
      list.push(coupon)
    }
    const acs = auto.wallet.participant.logic.acs
    for (const [collector, all] of byCollector) {
      for (let i = 0; i < all.length; i += 100) {
        const batch = all.slice(i, i + 100)
        const rounds = [...new Set(batch.map((c) => c.round))].sort((a, b) => a - b)
        const users = [...new Set(batch.map((c) => c.readAs).filter((p): p is PartyId => p !== undefined))]
        const rights = users.flatMap((user) => {
          const right = [...acs.ofTemplate(ValidatorRight.templateId, user)].find((c) => {
            const p = payloadOf<ValidatorRightPayload>(c)
            return p.user === user && p.validator === collector
          })
          return right === undefined ? [] : [{ _1: user, _2: right.created.contractId }]
        })
        const usable = batch.filter((c) => c.readAs === undefined || rights.some((r) => r._1 === c.readAs))
        if (usable.length === 0) continue
        const inputs: Array<TransferInput> = usable.map((c) => ({
          tag: c.kind === "app" ? "InputAppRewardCoupon" : c.kind === "validator" ? "InputValidatorRewardCoupon" : "InputValidatorLivenessActivityRecord",
          value: c.contractId
        }))
        const issuingContracts = rounds.flatMap((r) => {
          const issuingRound = issuingByRound.get(r)
          return issuingRound === undefined ? [] : [issuingRound]
        })
        const counts = { app: usable.filter((c) => c.kind === "app").length, validator: usable.filter((c) => c.kind === "validator").length, liveness: usable.filter((c) => c.kind === "liveness").length }
        yield* auto.run(
          [collector],
          users,
          `auto:collect:${collector}:${rounds.join(",")}:${usable[0]!.contractId}`,
          [
            Commands.exercise(CoinRules_Transfer, ref.rules.created.contractId, {
              transfer: { sender: collector, provider: collector, inputs, outputs: [], beneficiaries: null },
              context: {
                openMiningRound: ref.round.created.contractId,
                featuredAppRight: null,
                issuingMiningRounds: issuingContracts.map((r) => ({ _1: r.payload.round, _2: r.contract.created.contractId })),
                validatorRights: rights
              },
              expectedDso: auto.wallet.network.dso
            })
          ],
          [ref.rules, ref.round, ...issuingContracts.map((r) => r.contract)],
          usable.map((c) => c.contractId),
          (completion) => {
            if (completion._tag !== "Succeeded") return
            auto.stats.rewardCollections++
            auto.stats.appCouponsCollected += counts.app
            auto.stats.validatorCouponsCollected += counts.validator
            auto.stats.livenessRecordsCollected += counts.liveness
            auto.stats.rewardsMinted += mintedByTransfer(completion.results[0] ?? null)
          }
        )
      }
    }
  })
