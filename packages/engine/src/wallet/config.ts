/**
 * The wallet's configuration: one validated document (JSON or YAML, decoded with Schema), with
 * every field optional and defaulted. Types, units and defaults are documented in
 * docs/wallet-config.md; names follow the upstream validator app's configuration
 * (validatorWalletUser, autoAcceptTransfers, sweep with maxBalanceUSD / minBalanceUSD,
 * buyExtraTraffic with targetThroughput / minTopupInterval, transferPreapproval).
 *
 * Durations are strings with a unit ("500ms", "30s", "10m", "1h", "2d") and decode to microseconds.
 */
import { Either, ParseResult, Schema } from "effect"
import { isPartyId, type Micros } from "@sandnet/core"

const UNITS: Record<string, number> = { us: 1, ms: 1_000, s: 1_000_000, m: 60_000_000, h: 3_600_000_000, d: 86_400_000_000 }

/** "10m" -> 600000000 (microseconds). */
export const parseWalletDuration = (text: string): Micros | undefined => {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s|m|h|d)$/.exec(text.trim())
  if (m === null) return undefined
  return Math.round(Number(m[1]) * UNITS[m[2]!]!)
}

export const Duration = Schema.transformOrFail(Schema.String, Schema.Number, {
  strict: true,
  decode: (text, _options, ast) => {
    const value = parseWalletDuration(text)
    return value === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, text, `expected a duration such as "500ms", "30s", "10m", "1h" or "2d", got ${JSON.stringify(text)}`))
      : ParseResult.succeed(value)
  },
  encode: (us) => ParseResult.succeed(`${us}us`)
})

const PartyIdField = Schema.String.pipe(Schema.filter((s) => isPartyId(s) || "a party id (<hint>::1220<64 hex>)"))
const NonNegative = Schema.Number.pipe(Schema.greaterThanOrEqualTo(0))
const PositiveInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))

export const SweepEntry = Schema.Struct({
  /** The party whose excess coin is swept (hosted on this validator). */
  sender: PartyIdField,
  receiver: PartyIdField,
  /** Sweep once the sender's balance is worth more than this many USD. */
  maxBalanceUSD: NonNegative,
  /** What the sender keeps after a sweep, in USD. */
  minBalanceUSD: NonNegative,
  /** Send in one step when the receiver has a TransferPreapproval; otherwise a transfer offer. */
  useTransferPreapproval: Schema.optionalWith(Schema.Boolean, { default: () => true })
})
export type SweepEntry = typeof SweepEntry.Type

export const AutoAcceptEntry = Schema.Struct({
  /** The receiving party (hosted on this validator) whose incoming offers are accepted. */
  receiver: PartyIdField,
  /** Offers from these senders are accepted; "*" accepts from anyone. */
  fromParties: Schema.Array(Schema.Union(PartyIdField, Schema.Literal("*")))
})
export type AutoAcceptEntry = typeof AutoAcceptEntry.Type

export const WalletConfig = Schema.Struct({
  /** The wallet user tied to the validator operator's party. */
  validatorWalletUser: Schema.optionalWith(Schema.String.pipe(Schema.minLength(1)), { default: () => "operator" }),
  /** How often the automations wake up (besides reacting to ledger updates at once). */
  pollInterval: Schema.optionalWith(Duration, { default: () => 60_000_000 }),
  /** Collect and mint reward coupons and liveness records once their round issues; record liveness each round. */
  rewardCollection: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Traffic top-up of this validator's participant, paid by the operator. */
  buyExtraTraffic: Schema.optionalWith(
    Schema.Struct({
      /** Bytes per second of extra traffic to sustain; 0 disables top-ups. */
      targetThroughput: Schema.optionalWith(NonNegative, { default: () => 0 }),
      /** At most one top-up per synchronizer per this interval; a top-up buys targetThroughput x this. */
      minTopupInterval: Schema.optionalWith(Duration, { default: () => 600_000_000 }),
      /** On a development network, tap coin for the operator when it cannot pay. */
      tapOnDevNet: Schema.optionalWith(Schema.Boolean, { default: () => true })
    }),
    { default: () => ({ targetThroughput: 0, minTopupInterval: 600_000_000, tapOnDevNet: true }) }
  ),
  sweep: Schema.optionalWith(Schema.Array(SweepEntry), { default: () => [] }),
  autoAcceptTransfers: Schema.optionalWith(Schema.Array(AutoAcceptEntry), { default: () => [] }),
  /** Complete accepted legacy offers the wallet's users sent (pay the receiver). */
  completeAcceptedOffers: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Expire offers, accepted offers, transfer instructions and buy-traffic requests past their expiry. */
  expireOffers: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Pay open buy-traffic requests of the wallet's users. */
  completeBuyTrafficRequests: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  merge: Schema.optionalWith(
    Schema.Struct({
      enabled: Schema.optionalWith(Schema.Boolean, { default: () => true }),
      /** Merge a party's holdings once it has more than this many. */
      maxHoldings: Schema.optionalWith(PositiveInt, { default: () => 10 }),
      /** Most holdings merged by one transaction (at most 100, the transfer input limit). */
      batchSize: Schema.optionalWith(PositiveInt.pipe(Schema.lessThanOrEqualTo(100)), { default: () => 100 })
    }),
    { default: () => ({ enabled: true, maxHoldings: 10, batchSize: 100 }) }
  ),
  transferPreapproval: Schema.optionalWith(
    Schema.Struct({
      /** Lifetime of a preapproval the wallet creates or renews. */
      preapprovalLifetime: Schema.optionalWith(Duration, { default: () => 90 * 86_400_000_000 }),
      /** The provider renews a preapproval this long before it expires. */
      renewalDuration: Schema.optionalWith(Duration, { default: () => 30 * 86_400_000_000 }),
      /** Renew the preapprovals this validator's operator provides. */
      renew: Schema.optionalWith(Schema.Boolean, { default: () => true })
    }),
    { default: () => ({ preapprovalLifetime: 90 * 86_400_000_000, renewalDuration: 30 * 86_400_000_000, renew: true }) }
  ),
  /** Let the operator take on onboarded users' merge delegations automatically. */
  acceptMergeDelegations: Schema.optionalWith(Schema.Boolean, { default: () => true })
})
export type WalletConfig = typeof WalletConfig.Type
export type WalletConfigInput = typeof WalletConfig.Encoded

export class WalletConfigError extends Schema.TaggedError<WalletConfigError>()("WalletConfigError", {
  message: Schema.String
}) {}

/** Decodes a configuration document (a parsed JSON or YAML value); unknown fields are errors. */
export const decodeWalletConfig = (input: unknown): Either.Either<WalletConfig, WalletConfigError> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(WalletConfig, { onExcessProperty: "error" })(input ?? {}),
    (e) => new WalletConfigError({ message: ParseResult.TreeFormatter.formatErrorSync(e) })
  )

/** Every default. */
export const defaultWalletConfig: WalletConfig = Either.getOrThrow(decodeWalletConfig({}))
