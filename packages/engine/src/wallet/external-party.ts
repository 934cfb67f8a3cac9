/**
 * The validator's wallet for external parties (parties whose keys live outside the node): what the
 * validator admin API's `/v0/admin/external-party/...` endpoints do (splice-validator-internal.yaml).
 *
 * - The setup proposal: the validator operator creates an `ExternalPartySetupProposal` for an
 *   external party it hosts; the party accepts it with a transaction it signs itself, which creates
 *   its `ValidatorRight` and its `TransferPreapproval` (provider: the operator), so that it can
 *   receive coin in one step.
 * - Transfers from an external party: the node prepares a `TransferPreapproval_Send` of the
 *   party's coin (interactive submission: a prepared transaction and the hash the party signs with
 *   Ed25519), the party signs the hash and the node submits it, executed exactly as prepared (the
 *   prepared seed and ledger time; a transaction whose inputs changed since is refused as stale),
 *   with the hash as the transaction's external transaction hash.
 * - The balance of an external party, computed like Splice's `HoldingsSummary`.
 *
 * Splice keeps `ExternalPartySetupProposal` in splice-amulet (`Splice.AmuletRules`); Sandnet
 * declares it in a package of its own (`splice-coin-external-party`) so that the package id of
 * splice-coin stays what it was. The proposal carries no fee (every fee is zero here), so the
 * operator creates it directly, without going through the rules.
 *
 * Deviation: Splice's prepare-send creates a `TransferCommand` that the SVs' automation executes
 * later, deduplicated and ordered by a per-sender counter (`nonce`). Sandnet has no TransferCommand:
 * the signed transaction is the transfer itself (through the receiver's preapproval), the nonce
 * only deduplicates (one executed transfer per sender and nonce), and `expires_at` is signed as
 * part of the command id (`wallet:external-send:<nonce>:<expires at, µs>`) and checked at submission.
 */
import { Effect, Either, Schema } from "effect"
import {
  InvalidArgument,
  amountOf,
  formatAmount,
  isPartyId,
  parseAmount,
  parseIso,
  toIso,
  type ActiveContract,
  type Amount,
  type InterpretationError,
  type Json,
  type Micros,
  type PartyId
} from "@sandnet/core"
import {
  Coin,
  LockedCoin,
  TransferPreapproval,
  TransferPreapproval_Cancel,
  TransferPreapproval_Send,
  currentAmount,
  type CoinPayload,
  type LockedCoinPayload
} from "../coin/index.ts"
import { ErrorCodes, type CommandRejected } from "../errors.ts"
import * as External from "../external/index.ts"
import { Commands } from "../ledger/interpreter.ts"
import * as LedgerApi from "../queries/index.ts"
import type { Completion } from "../participant/index.ts"
import { renderContract, type ContractWithStateJson } from "../scan/json/contracts.ts"
import {
  DsoNotReady,
  ExternalPartyNotFound,
  InvalidExternalSignature,
  PreapprovalAlreadyExists,
  PreapprovalNotFound,
  SetupProposalAlreadyExists,
  SetupProposalNotFound,
  WalletCommandFailed,
  type WalletError
} from "./errors.ts"
import type { Outcome } from "./outcome.ts"
import type { WalletNode } from "./wallet.ts"

import { ExternalPartySetupProposal, ExternalPartySetupProposal_Accept, ExternalPartySetupProposalPayload } from "../coin/external-party-setup.ts"
export { ExternalPartySetupPackage, ExternalPartySetupProposal, ExternalPartySetupProposal_Accept, ExternalPartySetupProposalPayload } from "../coin/external-party-setup.ts"

// ---------------------------------------------------------------- request and reply shapes

export const CreateExternalPartySetupProposalRequest = Schema.Struct({ user_party_id: Schema.String })
export type CreateExternalPartySetupProposalRequest = typeof CreateExternalPartySetupProposalRequest.Type
export interface CreateExternalPartySetupProposalResponse {
  readonly contract_id: string
}
export interface ListExternalPartySetupProposalsResponse {
  readonly contracts: ReadonlyArray<ContractWithStateJson>
}

export const PrepareAcceptExternalPartySetupProposalRequest = Schema.Struct({
  contract_id: Schema.String,
  user_party_id: Schema.String,
  verbose_hashing: Schema.optional(Schema.Boolean)
})
export type PrepareAcceptExternalPartySetupProposalRequest = typeof PrepareAcceptExternalPartySetupProposalRequest.Type

/** A prepared transaction: `transaction` is base64 of the prepared transaction (Canton's protobuf PreparedTransaction), `tx_hash` the hex of the 32 bytes to sign. */
export interface PreparedExternalTransaction {
  readonly transaction: string
  readonly tx_hash: string
  readonly hashing_details?: string
}

export const ExternalPartySubmission = Schema.Struct({
  party_id: Schema.String,
  /** Base64 of the prepared transaction, unchanged. */
  transaction: Schema.String,
  /** Hex of the Ed25519 signature (`r || s`) over the 32 bytes of `tx_hash`. */
  signed_tx_hash: Schema.String,
  /** Hex of the party's raw 32-byte Ed25519 public key. */
  public_key: Schema.String
})
export type ExternalPartySubmission = typeof ExternalPartySubmission.Type

export interface SubmitAcceptExternalPartySetupProposalResponse {
  readonly transfer_preapproval_contract_id: string
  readonly update_id: string
}

export const PrepareTransferPreapprovalSendRequest = Schema.Struct({
  sender_party_id: Schema.String,
  receiver_party_id: Schema.String,
  /** A decimal (upstream: a JSON number); a string is accepted too. At most 10 fractional digits. */
  amount: Schema.Union(Schema.Number, Schema.String),
  /** ISO-8601. */
  expires_at: Schema.String,
  nonce: Schema.Int,
  verbose_hashing: Schema.optional(Schema.Boolean),
  description: Schema.optional(Schema.String)
})
export type PrepareTransferPreapprovalSendRequest = typeof PrepareTransferPreapprovalSendRequest.Type

export interface PrepareTransferPreapprovalSendResponse extends PreparedExternalTransaction {
  /** Sandnet has no TransferCommand: the id of the receiver's coin the prepared transfer creates (it executes as prepared). */
  readonly transfer_command_contract_id_prefix: string
}

export interface SubmitTransferPreapprovalSendResponse {
  readonly update_id: string
}

export interface ExternalPartyBalanceResponse {
  readonly party_id: string
  readonly total_unlocked_coin: string
  readonly total_locked_coin: string
  readonly total_coin_holdings: string
  readonly accumulated_holding_fees_unlocked: string
  readonly accumulated_holding_fees_locked: string
  readonly accumulated_holding_fees_total: string
  readonly total_available_coin: string
  readonly computed_as_of_round: number
}

// ---------------------------------------------------------------- operations

const payloadOf = <P>(c: ActiveContract): P => c.created.createArguments as unknown as P

/** The party, when it is an external party hosted on this validator (signing keys registered here). */
export const externalPartyOf = (node: WalletNode, party: string): Either.Either<PartyId, ExternalPartyNotFound> =>
  isPartyId(party) && node.participant.logic.hosts(party) && LedgerApi.externalPartyKeys(node.network, party) !== undefined
    ? Either.right(party)
    : Either.left(new ExternalPartyNotFound({ party }))

/** Active setup proposals the operator made, oldest first. */
const proposalsOf = (node: WalletNode): ReadonlyArray<ActiveContract> =>
  [...node.participant.logic.acs.ofTemplate(ExternalPartySetupProposal.templateId, node.operator)].filter(
    (c) => payloadOf<ExternalPartySetupProposalPayload>(c).validator === node.operator
  )

const proposalOf = (node: WalletNode, party: PartyId): ActiveContract | undefined =>
  proposalsOf(node).find((c) => payloadOf<ExternalPartySetupProposalPayload>(c).user === party)

export const listExternalPartySetupProposals = (node: WalletNode): ListExternalPartySetupProposalsResponse => ({
  contracts: proposalsOf(node).map((c) => ({ contract: renderContract(c), domain_id: c.synchronizerId }))
})

const commandFailed = (commandId: string, error: { readonly _tag: string; readonly message: string; readonly code?: string }): WalletCommandFailed =>
  new WalletCommandFailed({ commandId, code: error.code ?? error._tag, reason: error.message })

const expectSuccess = <A>(completion: Completion, value: (results: ReadonlyArray<Json>, updateId: string) => A): Either.Either<A, WalletError> =>
  completion._tag === "Failed"
    ? Either.left(new WalletCommandFailed({ commandId: completion.commandId, code: completion.code, reason: completion.reason }))
    : Either.right(value(completion.results, completion.updateId))

/** The operator proposes the setup to an external party it hosts (409 when a proposal or a preapproval exists). */
export const createExternalPartySetupProposal = (
  node: WalletNode,
  request: CreateExternalPartySetupProposalRequest,
  now: Micros
): Effect.Effect<Outcome<CreateExternalPartySetupProposalResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* externalPartyOf(node, request.user_party_id)
    const existing = proposalOf(node, party)
    if (existing !== undefined) return yield* new SetupProposalAlreadyExists({ contractId: existing.created.contractId })
    const preapproval = node.dso.preapprovalOf(party, now)
    if (preapproval !== undefined) return yield* new PreapprovalAlreadyExists({ contractId: preapproval.contract.created.contractId })
    const commandId = `wallet:external-setup:${party}:${now}`
    const payload: ExternalPartySetupProposalPayload = {
      validator: node.operator,
      user: party,
      dso: node.network.dso,
      preapprovalExpiresAt: toIso(now + node.config.transferPreapproval.preapprovalLifetime)
    }
    yield* node.submit([node.operator], [], commandId, [Commands.create(ExternalPartySetupProposal, payload)], [], [])
    return {
      _tag: "Submitted",
      pending: { commandId, actAs: [node.operator], finish: (c) => expectSuccess(c, (results) => ({ contract_id: String(results[0]) })) }
    } satisfies Outcome<CreateExternalPartySetupProposalResponse>
  })

const hashingDetails = External.preparedTransactionHashingDetails

const prepared = (
  node: WalletNode,
  input: LedgerApi.PrepareInput,
  now: Micros,
  verbose: boolean | undefined
): Either.Either<{ readonly response: PreparedExternalTransaction; readonly transaction: LedgerApi.PreparedTransaction }, WalletError> =>
  Either.map(
    Either.mapLeft(LedgerApi.prepareSubmission(node.participant, input, now), (error) => commandFailed(input.commandId, error)),
    (transaction) => ({
      response: {
        transaction: transaction.encoded,
        tx_hash: transaction.hash.hex,
        ...(verbose === true ? { hashing_details: hashingDetails(transaction.hash) } : {})
      },
      transaction
    })
  )

/** Prepares the external party's acceptance of its setup proposal (to be signed and submitted with submit-accept). */
export const prepareAcceptExternalPartySetupProposal = (
  node: WalletNode,
  request: PrepareAcceptExternalPartySetupProposalRequest,
  now: Micros
): Either.Either<PreparedExternalTransaction, WalletError> =>
  Either.gen(function* () {
    const party = yield* externalPartyOf(node, request.user_party_id)
    const proposal = proposalOf(node, party)
    if (proposal === undefined) return yield* Either.left(new SetupProposalNotFound({ party }))
    if (proposal.created.contractId !== request.contract_id) {
      return yield* Either.left(new InvalidArgument({ field: "contract_id", message: "Found contract does not match provided contractId." }))
    }
    const rules = node.dso.coinRules()
    if (rules === undefined) return yield* Either.left(new DsoNotReady({ reason: "no CoinRules yet" }))
    const result = yield* prepared(
      node,
      {
        commandId: `wallet:external-setup-accept:${proposal.created.contractId}`,
        actAs: [party],
        readAs: [party],
        commands: [Commands.exercise(ExternalPartySetupProposal_Accept, proposal.created.contractId, { coinRules: rules.contract.created.contractId })],
        disclosedContracts: [rules.contract]
      },
      now,
      request.verbose_hashing
    )
    return result.response
  })

const validAmount = (value: number | string): Either.Either<Amount, InvalidArgument> => {
  const amount = parseAmount(typeof value === "number" ? String(value) : value)
  if (amount === undefined) return Either.left(new InvalidArgument({ field: "amount", message: "must be a decimal with at most 10 fractional digits" }))
  if (amount <= 0n) return Either.left(new InvalidArgument({ field: "amount", message: "must be positive" }))
  return Either.right(amount)
}

const SEND_COMMAND = /^wallet:external-send:(\d+):(\d+)$/

/** Prepares a one-step transfer of the external party's coin through the receiver's preapproval. */
export const prepareTransferPreapprovalSend = (
  node: WalletNode,
  request: PrepareTransferPreapprovalSendRequest,
  now: Micros
): Either.Either<PrepareTransferPreapprovalSendResponse, WalletError> =>
  Either.gen(function* () {
    const sender = yield* externalPartyOf(node, request.sender_party_id)
    if (!isPartyId(request.receiver_party_id)) return yield* Either.left(new InvalidArgument({ field: "receiver_party_id", message: "is not a party id" }))
    if (request.receiver_party_id === sender) return yield* Either.left(new InvalidArgument({ field: "receiver_party_id", message: "must differ from the sender" }))
    const amount = yield* validAmount(request.amount)
    const expiresAt = parseIso(request.expires_at)
    if (expiresAt === undefined) return yield* Either.left(new InvalidArgument({ field: "expires_at", message: "is not an ISO-8601 time" }))
    if (expiresAt <= now) return yield* Either.left(new InvalidArgument({ field: "expires_at", message: "must be in the future" }))
    if (request.nonce < 0) return yield* Either.left(new InvalidArgument({ field: "nonce", message: "must not be negative" }))
    const preapproval = node.dso.preapprovalOf(request.receiver_party_id, now)
    if (preapproval === undefined) {
      return yield* Either.left(new InvalidArgument({ field: "receiver_party_id", message: `Receiver ${request.receiver_party_id} does not have a TransferPreapproval` }))
    }
    const ref = yield* node.reference(now)
    const inputs = yield* node.selectCoins(sender, amount, ref.roundNumber)
    const featured = node.dso.featuredAppRightOf(preapproval.payload.provider)
    const result = yield* prepared(
      node,
      {
        commandId: `wallet:external-send:${request.nonce}:${expiresAt}`,
        actAs: [sender],
        readAs: [sender],
        commands: [
          Commands.exercise(TransferPreapproval_Send, preapproval.contract.created.contractId, {
            sender,
            coinRules: ref.rules.created.contractId,
            context: { openMiningRound: ref.round.created.contractId, featuredAppRight: featured?.contract.created.contractId ?? null },
            inputs: inputs.map((value) => ({ tag: "InputCoin" as const, value })),
            amount: formatAmount(amount),
            description: request.description ?? null
          })
        ],
        disclosedContracts: [ref.rules, ref.round, preapproval.contract, ...(featured === undefined ? [] : [featured.contract])]
      },
      now,
      request.verbose_hashing
    )
    const receiverCoin = result.transaction.transaction.nodes.find(
      (n) => n.kind === "created" && n.templateId === Coin.templateId && (n.createArguments as unknown as CoinPayload).owner === request.receiver_party_id
    )
    return { ...result.response, transfer_command_contract_id_prefix: receiverCoin?.kind === "created" ? receiverCoin.contractId : "" }
  })

/** What a submit endpoint accepts: the choice its transaction must exercise. */
export type ExternalSubmissionKind = "setupAccept" | "transferSend"

const expectedChoice: Record<ExternalSubmissionKind, string> = {
  setupAccept: ExternalPartySetupProposal_Accept.name,
  transferSend: TransferPreapproval_Send.name
}

/** An input consumed since preparation: the transaction can no longer execute as signed. */
const staleOrFailed = (commandId: string, error: InterpretationError | CommandRejected): WalletError =>
  error._tag === "ContractNotFound" || error._tag === "ContractNotActive"
    ? new WalletCommandFailed({
        commandId,
        code: ErrorCodes.preparedTransactionStale,
        reason: `an input of the prepared transaction is no longer active (${error.message}); prepare it again`
      })
    : commandFailed(commandId, error)

/**
 * Submits an externally signed prepared transaction: it must be one this network prepared (it
 * replays here to what was signed), of the
 * expected kind, for the party alone, signed over its hash by one of the party's registered keys;
 * it then executes exactly as prepared, with the hash as its external transaction hash.
 */
const submitExternal = <A>(
  node: WalletNode,
  submission: ExternalPartySubmission,
  kind: ExternalSubmissionKind,
  now: Micros,
  reply: (results: ReadonlyArray<Json>, updateId: string) => A
): Effect.Effect<Outcome<A>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* externalPartyOf(node, submission.party_id)
    const key = yield* External.parseHexEd25519PublicKey(submission.public_key, "submission.public_key")
    const prep = yield* LedgerApi.decodePreparedTransaction(submission.transaction, "submission.transaction")
    const invalid = (message: string) => new InvalidArgument({ field: "submission.transaction", message })
    if (prep.actAs.length !== 1 || prep.actAs[0] !== party) return yield* invalid(`must act as ${party} alone`)
    const commands = yield* Either.mapLeft(LedgerApi.commandsOfRoots(node.participant.logic.registry, prep.message.transaction!), invalid)
    const command = commands[0]
    if (commands.length !== 1 || command?._tag !== "ExerciseCommand" || command.choice !== expectedChoice[kind]) {
      return yield* invalid(`is not a prepared ${expectedChoice[kind]}`)
    }
    const keys = LedgerApi.externalPartyKeys(node.network, party)
    if (keys === undefined || !keys.keys.some((k) => k.fingerprint === key.fingerprint)) {
      return yield* new InvalidExternalSignature({ party, reason: `key ${key.fingerprint} is not a signing key of ${party}` })
    }
    const signature = yield* External.walletSignature(key, submission.signed_tx_hash, "submission.signed_tx_hash")
    const verified = LedgerApi.verifyPreparedSignatures(node.network, prep.actAs, prep.hash, [{ party, signatures: [signature] }], "submission.signed_tx_hash")
    if (Either.isLeft(verified)) return yield* new InvalidExternalSignature({ party, reason: verified.left.message })
    if (kind === "transferSend") {
      const expiresAt = Number(SEND_COMMAND.exec(prep.commandId)?.[2] ?? Number.NaN)
      if (!(now < expiresAt)) return yield* invalid(`expired at ${Number.isFinite(expiresAt) ? toIso(expiresAt) : "an unknown time"}; prepare it again`)
    }
    const replayed = yield* Either.mapLeft(LedgerApi.replayPreparedTransaction(node.participant, prep, "submission.transaction"), (error) =>
      error._tag === "InvalidArgument" ? error : staleOrFailed(prep.commandId, error)
    )
    yield* node.participant
      .submit({
        actAs: prep.actAs,
        readAs: [],
        commandId: prep.commandId,
        commands: replayed.commands,
        disclosedContracts: prep.disclosedContracts,
        synchronizerId: prep.synchronizerId,
        externalTransactionHash: prep.hash.hex,
        prepared: { transactionSeed: prep.transactionSeed, ledgerTime: prep.ledgerTime, nodes: replayed.nodes }
      })
      .pipe(Effect.mapError((error) => staleOrFailed(prep.commandId, error)))
    return {
      _tag: "Submitted",
      pending: { commandId: prep.commandId, actAs: prep.actAs, finish: (c: Completion) => expectSuccess(c, reply) }
    } satisfies Outcome<A>
  })

export const submitAcceptExternalPartySetupProposal = (
  node: WalletNode,
  submission: ExternalPartySubmission,
  now: Micros
): Effect.Effect<Outcome<SubmitAcceptExternalPartySetupProposalResponse>, WalletError> =>
  submitExternal(node, submission, "setupAccept", now, (results, updateId) => ({
    transfer_preapproval_contract_id: String((results[0] as { transferPreapprovalCid?: string } | null)?.transferPreapprovalCid ?? ""),
    update_id: updateId
  }))

export const submitTransferPreapprovalSend = (
  node: WalletNode,
  submission: ExternalPartySubmission,
  now: Micros
): Effect.Effect<Outcome<SubmitTransferPreapprovalSendResponse>, WalletError> =>
  submitExternal(node, submission, "transferSend", now, (_results, updateId) => ({ update_id: updateId }))

/** Splice's HoldingsSummary of an external party at the newest open round. */
export const externalPartyBalance = (node: WalletNode, partyId: string, now: Micros): Either.Either<ExternalPartyBalanceResponse, WalletError> =>
  Either.gen(function* () {
    const party = yield* externalPartyOf(node, partyId)
    const open = node.dso.latestOpenRound(now)
    if (open === undefined) return yield* Either.left(new DsoNotReady({ reason: "No open mining round found" }))
    const round = Number(open.payload.round.number)
    const acs = node.participant.logic.acs
    let unlocked = 0n
    let locked = 0n
    let feesUnlocked = 0n
    let feesLocked = 0n
    for (const c of acs.ofTemplate(Coin.templateId, party)) {
      const amount = payloadOf<CoinPayload>(c).amount
      if (payloadOf<CoinPayload>(c).owner !== party) continue
      const value = currentAmount(amount, round)
      unlocked += value
      feesUnlocked += amountOf(amount.initialAmount) - value
    }
    for (const c of acs.ofTemplate(LockedCoin.templateId, party)) {
      const coin = payloadOf<LockedCoinPayload>(c).coin
      if (coin.owner !== party) continue
      const value = currentAmount(coin.amount, round)
      locked += value
      feesLocked += amountOf(coin.amount.initialAmount) - value
    }
    return {
      party_id: party,
      total_unlocked_coin: formatAmount(unlocked),
      total_locked_coin: formatAmount(locked),
      total_coin_holdings: formatAmount(unlocked + locked),
      accumulated_holding_fees_unlocked: formatAmount(feesUnlocked),
      accumulated_holding_fees_locked: formatAmount(feesLocked),
      accumulated_holding_fees_total: formatAmount(feesUnlocked + feesLocked),
      total_available_coin: formatAmount(unlocked),
      computed_as_of_round: round
    }
  })

/** TransferPreapprovals the validator operator provides (validator admin API). */
export const listOperatorTransferPreapprovals = (node: WalletNode): ReadonlyArray<ContractWithStateJson> =>
  [...node.participant.logic.acs.ofTemplate(TransferPreapproval.templateId, node.operator)]
    .filter((c) => payloadOf<{ provider: string }>(c).provider === node.operator)
    .map((c) => ({ contract: renderContract(c), domain_id: c.synchronizerId }))

const operatorPreapprovalOf = (node: WalletNode, receiver: string): ActiveContract | undefined =>
  [...node.participant.logic.acs.ofTemplate(TransferPreapproval.templateId, node.operator)].find((c) => {
    const p = payloadOf<{ provider: string; receiver: string }>(c)
    return p.provider === node.operator && p.receiver === receiver
  })

/** The operator cancels the TransferPreapproval it provides to `receiver` (404 when it provides none). */
export const cancelTransferPreapprovalByParty = (node: WalletNode, receiver: string, now: Micros): Effect.Effect<Outcome<void>, WalletError> =>
  Effect.gen(function* () {
    const preapproval = operatorPreapprovalOf(node, receiver)
    if (preapproval === undefined) return yield* new PreapprovalNotFound({ receiver })
    const commandId = `wallet:preapproval-cancel:${preapproval.created.contractId}:${now}`
    yield* node.submit([node.operator], [], commandId, [Commands.exercise(TransferPreapproval_Cancel, preapproval.created.contractId, { p: node.operator })], [], [])
    return { _tag: "Submitted", pending: { commandId, actAs: [node.operator], finish: (c) => expectSuccess(c, () => undefined) } } satisfies Outcome<void>
  })

/** The TransferPreapproval of a receiver (as the DSO's scan knows it), when there is one. */
export const lookupTransferPreapproval = (node: WalletNode, receiver: string, now: Micros): ContractWithStateJson | undefined => {
  const found = node.dso.preapprovalOf(receiver, now)
  return found === undefined ? undefined : { contract: renderContract(found.contract), domain_id: found.contract.synchronizerId }
}
