/**
 * How the wallet submits: the DSO contracts a command needs now, submission through the node's
 * participant with the command's input coins reserved until its completion, checks of request
 * fields shared by the commands, and turning a completion into the command's reply.
 */
import { Clock, Effect, Either } from "effect"
import {
  formatAmount,
  InvalidArgument,
  isPartyId,
  MAX_HOLDING_TOTAL,
  micros as microsOf,
  parseAmount,
  type ActiveContract,
  type Amount,
  type ContractId,
  type Json,
  type Micros,
  type PartyId
} from "@sandnet/core"
import { Commands, type Command } from "../ledger/interpreter.ts"
import type { Completion } from "../participant/index.ts"
import type { WalletContext } from "./context.ts"
import { DsoNotReady, WalletCommandFailed, type WalletError } from "./errors.ts"
import { balanceOf } from "./reads.ts"

export const nowMicros: Effect.Effect<Micros> = Effect.map(Clock.currentTimeNanos, microsOf.fromNanos)

/** The DSO contracts a transfer needs right now. */
export const reference = (
  wallet: WalletContext,
  now: Micros
): Either.Either<{ readonly rules: ActiveContract; readonly round: ActiveContract; readonly roundNumber: number; readonly isDevNet: boolean }, DsoNotReady> => {
  const rules = wallet.dso.coinRules()
  const round = wallet.dso.latestOpenRound(now)
  if (rules === undefined || round === undefined) return Either.left(new DsoNotReady({ reason: "no CoinRules or no open mining round yet" }))
  return Either.right({ rules: rules.contract, round: round.contract, roundNumber: Number(round.payload.round.number), isDevNet: rules.payload.isDevNet })
}

/** Submits a command; interpretation errors and refusals become WalletCommandFailed. */
export const submit = (
  wallet: WalletContext,
  actAs: ReadonlyArray<PartyId>,
  readAs: ReadonlyArray<PartyId>,
  commandId: string,
  commands: ReadonlyArray<Command>,
  disclosed: ReadonlyArray<ActiveContract>,
  inputs: ReadonlyArray<ContractId>
): Effect.Effect<string, WalletCommandFailed> =>
  wallet.participant.submit({ userId: wallet.config.validatorWalletUser, actAs, readAs, commandId, commands, disclosedContracts: disclosed }).pipe(
    Effect.map(({ updateId }) => {
      wallet.reservations.reserve(commandId, inputs)
      return updateId
    }),
    Effect.mapError((e) => {
      wallet.stats.commandsFailed++
      // (strings by type: built without the schema's validation, as the participant's rejections are)
      return new WalletCommandFailed({ commandId, code: e._tag === "CommandRejected" ? e.code : e._tag, reason: e.message }, true)
    })
  )

/** A receiver the network's topology does not know would be an informee nobody hosts: 400. */
export const knownReceiver = (wallet: WalletContext, receiver: PartyId): Either.Either<void, InvalidArgument> =>
  wallet.network.topology.isKnownParty(receiver)
    ? Either.right(undefined)
    : Either.left(new InvalidArgument({ field: "receiver_party_id", message: "is not a known party" }))

/** The reply of a command that succeeded, or the ledger's refusal as WalletCommandFailed. */
export const expectSuccess = <A>(completion: Completion, value: (results: ReadonlyArray<Json>, updateId: string) => A): Either.Either<A, WalletError> => {
  if (completion._tag === "Failed") return Either.left(new WalletCommandFailed({ commandId: completion.commandId, code: completion.code, reason: completion.reason }))
  return Either.right(value(completion.results, completion.updateId))
}

export const archiveOf = <P>(template: { readonly choices: Map<string, unknown> } & Parameters<typeof Commands.create<P>>[0]) =>
  template.choices.get("Archive") as Parameters<typeof Commands.exercise<P, Record<string, never>>>[0]

export const validAmount = (text: string): Either.Either<Amount, InvalidArgument> => {
  const amount = parseAmount(text)
  if (amount === undefined) return Either.left(new InvalidArgument({ field: "amount", message: "must be a decimal with at most 10 fractional digits" }))
  if (amount <= 0n) return Either.left(new InvalidArgument({ field: "amount", message: "must be positive" }))
  if (amount > MAX_HOLDING_TOTAL) return Either.left(new InvalidArgument({ field: "amount", message: `must be at most ${formatAmount(MAX_HOLDING_TOTAL)} (the most coin a party may hold)` }))
  return Either.right(amount)
}

/** Coin the receiver may still take in without its holdings leaving the limit their sums need. */
export const withinHoldingLimit = (wallet: WalletContext, party: PartyId, amount: Amount, now: Micros): Either.Either<void, InvalidArgument> => {
  const balance = balanceOf(wallet, party, now)
  const total = balance.unlocked + balance.locked + amount
  return total <= MAX_HOLDING_TOTAL
    ? Either.right(undefined)
    : Either.left(
        new InvalidArgument({
          field: "amount",
          message: `would bring the holdings of ${party} to ${formatAmount(total)}, over the limit of ${formatAmount(MAX_HOLDING_TOTAL)} a party may hold (Numeric 10 sums must stay in range)`
        })
      )
}

export const validReceiver = (receiver: string, sender: PartyId): Either.Either<void, InvalidArgument> => {
  if (!isPartyId(receiver)) return Either.left(new InvalidArgument({ field: "receiver_party_id", message: "is not a party id" }))
  if (receiver === sender) return Either.left(new InvalidArgument({ field: "receiver_party_id", message: "must differ from the sender" }))
  return Either.right(undefined)
}
