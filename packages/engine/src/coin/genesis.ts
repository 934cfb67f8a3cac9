/**
 * The DSO's genesis transaction: CoinRules, the first three mining rounds (Splice's
 * AmuletRules_Bootstrap_Rounds: rounds 0 and 1 open at once, round 2 one tick later, so that two
 * rounds are always open), DsoRules, the name-service rules, the external-party rules and a
 * ValidatorLicense per validator operator.
 */
import { micros, toIso, type Micros, type PartyId } from "@sandnet/core"
import { Commands, type Command } from "../ledger/interpreter.ts"
import { ValidatorLicense } from "./rewards.ts"
import { DEFAULT_ISSUANCE_CONFIG, OpenMiningRound, type CoinConfig, type OpenMiningRoundPayload } from "./config.ts"
import { AnsRules, DsoRules } from "./governance.ts"
import { ExternalPartyCoinRules } from "./instruction.ts"
import { CoinRules } from "./rules.ts"

/** The USD-denominated configuration of the coin model's defaults (see docs/economy.md). */
export const defaultCoinConfig = (synchronizerId: string, tickDuration: Micros): CoinConfig => ({
  transferConfig: {
    createFee: { fee: "0.0000000000" },
    // 1 USD per year: 1/52560 USD per 10-minute round.
    holdingFee: { rate: "0.0000190259" },
    transferFee: { initialRate: "0.0000000000", steps: [] },
    lockHolderFee: { fee: "0.0000000000" },
    extraFeaturedAppRewardAmount: "1.0000000000",
    maxNumInputs: "100",
    maxNumOutputs: "100",
    maxNumLockHolders: "50"
  },
  issuanceCurve: { initialValue: DEFAULT_ISSUANCE_CONFIG, futureValues: [] },
  decentralizedSynchronizer: {
    activeSynchronizer: synchronizerId,
    fees: {
      baseRateTrafficLimits: { burstAmount: "400000", burstWindow: { microseconds: String(micros.minutes(20)) } },
      extraTrafficPrice: "16.6700000000",
      readVsWriteScalingFactor: "4",
      minTopupAmount: "200000"
    }
  },
  tickDuration: { microseconds: String(tickDuration) }
})

export interface GenesisParameters {
  readonly dso: PartyId
  readonly superValidators: ReadonlyArray<{ readonly party: PartyId; readonly name: string }>
  readonly validatorOperators: ReadonlyArray<PartyId>
  readonly synchronizerId: string
  readonly tickDuration: Micros
  /** USD per coin. */
  readonly initialCoinPrice: string
  readonly isDevNet: boolean
  readonly now: Micros
}

/** Round `n` of the bootstrap: rounds 0 and 1 open now, round 2 one tick later; each open two ticks. */
export const bootstrapRound = (p: GenesisParameters, n: 0 | 1 | 2, config: CoinConfig): OpenMiningRoundPayload => {
  const tick = p.tickDuration
  const opensAt = n === 2 ? p.now + tick : p.now
  const targetClosesAt = p.now + (n + 1) * tick
  return {
    dso: p.dso,
    round: { number: String(n) },
    coinPrice: p.initialCoinPrice,
    opensAt: toIso(opensAt),
    targetClosesAt: toIso(targetClosesAt),
    issuingFor: { microseconds: String(n * tick) },
    transferConfigUsd: config.transferConfig,
    issuanceConfig: config.issuanceCurve.initialValue,
    tickDuration: { microseconds: String(tick) }
  }
}

export const genesisCommands = (p: GenesisParameters): ReadonlyArray<Command> => {
  const config = defaultCoinConfig(p.synchronizerId, p.tickDuration)
  return [
    Commands.create(CoinRules, { dso: p.dso, configSchedule: { initialValue: config, futureValues: [] }, isDevNet: p.isDevNet }),
    Commands.create(OpenMiningRound, bootstrapRound(p, 0, config)),
    Commands.create(OpenMiningRound, bootstrapRound(p, 1, config)),
    Commands.create(OpenMiningRound, bootstrapRound(p, 2, config)),
    Commands.create(DsoRules, {
      dso: p.dso,
      epoch: "0",
      svs: p.superValidators.map((s) => ({ sv: s.party, name: s.name })),
      config: { voteRequestTimeout: { microseconds: String(micros.days(7)) } },
      isDevNet: p.isDevNet
    }),
    Commands.create(AnsRules, {
      dso: p.dso,
      config: {
        renewalDuration: { microseconds: String(micros.days(30)) },
        entryLifetime: { microseconds: String(micros.days(90)) },
        entryFee: "1.0000000000",
        descriptionPrefix: "CNS entry: "
      }
    }),
    Commands.create(ExternalPartyCoinRules, { dso: p.dso }),
    ...p.validatorOperators.map((validator) =>
      Commands.create(ValidatorLicense, { dso: p.dso, validator, sponsor: p.superValidators[0]?.party ?? p.dso, faucetState: null, lastActiveAt: null })
    )
  ]
}
