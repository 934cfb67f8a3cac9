/**
 * What validators read about the DSO's contracts, from a super validator's ACS (the real validator
 * reads them from scan and submits them as disclosed contracts): the rules, the open and issuing
 * rounds, transfer preapprovals and featured app rights. Every lookup goes through the ACS's
 * template-and-stakeholder index, so none of them costs more than the few contracts it returns.
 */
import { parseIso, type ActiveContract, type Micros, type PartyId } from "@sandnet/core"
import {
  AnsRules,
  CoinRules,
  DsoRules,
  ExternalPartyCoinRules,
  FeaturedAppRight,
  IssuingMiningRound,
  OpenMiningRound,
  TransferPreapproval,
  type CoinRulesPayload,
  type DsoRulesPayload,
  type FeaturedAppRightPayload,
  type IssuingMiningRoundPayload,
  type OpenMiningRoundPayload,
  type TransferPreapprovalPayload
} from "../coin/index.ts"
import type { ParticipantLogic } from "../participant/index.ts"

export interface TypedContract<P> {
  readonly contract: ActiveContract
  readonly payload: P
}

const typed = <P>(contract: ActiveContract): TypedContract<P> => ({ contract, payload: contract.created.createArguments as unknown as P })

/** What a DSO view needs of a network: the DSO party and the super validators' participants (a CoinNetwork). */
export interface DsoNetwork {
  readonly dso: PartyId
  readonly superValidators: ReadonlyArray<{ readonly participant: { readonly logic: ParticipantLogic } }>
}

const roundOf = (p: { readonly round: { readonly number: string } }): number => Number(p.round.number)

export class DsoView {
  constructor(
    readonly dso: PartyId,
    private readonly sv: ParticipantLogic
  ) {}

  static of(network: DsoNetwork, svIndex = 0): DsoView {
    const sv = network.superValidators[svIndex] ?? network.superValidators[0]!
    return new DsoView(network.dso, sv.participant.logic)
  }

  private first<P>(templateId: string, party: PartyId = this.dso): TypedContract<P> | undefined {
    const next = this.sv.acs.ofTemplate(templateId, party).next()
    return next.done === true ? undefined : typed<P>(next.value)
  }

  coinRules(): TypedContract<CoinRulesPayload> | undefined {
    return this.first(CoinRules.templateId)
  }

  dsoRules(): TypedContract<DsoRulesPayload> | undefined {
    return this.first(DsoRules.templateId)
  }

  externalPartyCoinRules(): ActiveContract | undefined {
    return this.first(ExternalPartyCoinRules.templateId)?.contract
  }

  ansRules(): ActiveContract | undefined {
    return this.first(AnsRules.templateId)?.contract
  }

  /** Open rounds by round number, opened or not. */
  openRounds(): ReadonlyArray<TypedContract<OpenMiningRoundPayload>> {
    return [...this.sv.acs.ofTemplate(OpenMiningRound.templateId, this.dso)].map((c) => typed<OpenMiningRoundPayload>(c)).sort((a, b) => roundOf(a.payload) - roundOf(b.payload))
  }

  /** The newest round open at `now`: the one transfers should use. */
  latestOpenRound(now: Micros): TypedContract<OpenMiningRoundPayload> | undefined {
    // The ACS's view walked once (no sorted list built: the newest open round is the largest number;
    // among equal numbers the first in the ACS's order, as in openRounds' stable order).
    let best: ActiveContract | undefined
    let bestRound = 0
    for (const c of this.sv.acs.ofTemplate(OpenMiningRound.templateId, this.dso)) {
      const payload = c.created.createArguments as unknown as OpenMiningRoundPayload
      if ((parseIso(payload.opensAt) ?? Number.MAX_SAFE_INTEGER) > now) continue
      const round = roundOf(payload)
      if (best === undefined || round > bestRound) {
        best = c
        bestRound = round
      }
    }
    return best === undefined ? undefined : typed<OpenMiningRoundPayload>(best)
  }

  /** Issuing rounds whose coupons can be minted at `now`. */
  issuingRounds(now: Micros): ReadonlyArray<TypedContract<IssuingMiningRoundPayload>> {
    return [...this.sv.acs.ofTemplate(IssuingMiningRound.templateId, this.dso)]
      .map((c) => typed<IssuingMiningRoundPayload>(c))
      .filter((r) => (parseIso(r.payload.opensAt) ?? Number.MAX_SAFE_INTEGER) <= now)
      .sort((a, b) => roundOf(a.payload) - roundOf(b.payload))
  }

  /** The receiver's current preapproval (the one expiring last), if any. */
  preapprovalOf(receiver: PartyId, now?: Micros): TypedContract<TransferPreapprovalPayload> | undefined {
    let best: TypedContract<TransferPreapprovalPayload> | undefined
    for (const c of this.sv.acs.ofTemplate(TransferPreapproval.templateId, receiver)) {
      const p = typed<TransferPreapprovalPayload>(c)
      if (p.payload.receiver !== receiver) continue
      const expiresAt = parseIso(p.payload.expiresAt) ?? 0
      if (now !== undefined && expiresAt <= now) continue
      if (best === undefined || expiresAt > (parseIso(best.payload.expiresAt) ?? 0)) best = p
    }
    return best
  }

  featuredAppRightOf(provider: PartyId): TypedContract<FeaturedAppRightPayload> | undefined {
    for (const c of this.sv.acs.ofTemplate(FeaturedAppRight.templateId, provider)) {
      const p = typed<FeaturedAppRightPayload>(c)
      if (p.payload.provider === provider) return p
    }
    return undefined
  }

  contract(contractId: string): ActiveContract | undefined {
    return this.sv.acs.get(contractId)
  }
}
