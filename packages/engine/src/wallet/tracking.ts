/**
 * Exactly-once tracking ids (transfer offers, token-standard transfers, buy-traffic requests): the
 * tracking-id lifecycle (free -> inProgress -> created | free) decides whether a request may be
 * submitted (429 while in progress, 409 once created, after a failure without a contract it
 * proceeds) and is journaled before the command is submitted. The command id is derived from the
 * tracking id, so the participant's command deduplication backs it up. When the command completes,
 * the lifecycle of what it created (offer, instruction, buy-traffic request) starts.
 */
import { Effect, Either } from "effect"
import { InvalidArgument, invariant, type ActiveContract, type ContractId, type Json, type PartyId } from "@sandnet/core"
import { expiryOf } from "../coin/expiry.ts"
import type { BuyTrafficRequestPayload, CoinTransferInstructionPayload, TransferOfferPayload } from "../coin/index.ts"
import type { Command } from "../ledger/interpreter.ts"
import { buyTrafficRequestMachine } from "../machines/buy-traffic-request.ts"
import { contextOf, start, step } from "../machines/lifecycle.ts"
import { submissionDecision, trackingIdMachine } from "../machines/tracking-id.ts"
import { transferInstructionMachine } from "../machines/transfer-instruction.ts"
import { transferOfferMachine } from "../machines/transfer-offer.ts"
import type { Completion } from "../participant/index.ts"
import type { WalletContext } from "./context.ts"
import { TrackingIdAlreadyUsed, TrackingIdInProgress, type WalletError } from "./errors.ts"
import { trackingKey, type TrackedKind, type TrackingRecord } from "./journal.ts"
import { persistSnapshot, restoreSnapshot } from "./snapshots.ts"
import { submit } from "./submission.ts"

/** Whether a request with this tracking id may be submitted now: its tracking key, or why not. */
export const decide = (wallet: WalletContext, kind: TrackedKind, party: PartyId, trackingId: string): Either.Either<string, WalletError> => {
  if (trackingId.length === 0) return Either.left(new InvalidArgument({ field: "tracking_id", message: "must not be empty" }))
  const key = trackingKey(party, kind, trackingId)
  const record = wallet.state.tracking.get(key)
  const snapshot = record === undefined ? undefined : restoreSnapshot(trackingIdMachine, record.tracking)
  switch (submissionDecision(snapshot)) {
    case "proceed":
      return Either.right(key)
    case "inProgress":
      return Either.left(new TrackingIdInProgress({ trackingId }))
    case "alreadyCreated":
      return Either.left(new TrackingIdAlreadyUsed({ trackingId, contractId: snapshot === undefined ? "" : (contextOf<typeof trackingIdMachine>(snapshot).contractId ?? "") }))
  }
}

const stepTracking = (wallet: WalletContext, key: string, record: TrackingRecord, event: Parameters<typeof step<typeof trackingIdMachine>>[2]): void => {
  const result = step(trackingIdMachine, restoreSnapshot(trackingIdMachine, record.tracking), event)
  invariant(result.accepted, () => `tracking id ${record.trackingId}: ${event.type} refused in ${record.tracking.state}`)
  wallet.apply({ _tag: "TrackingIdChanged", key, record: { ...record, tracking: persistSnapshot(trackingIdMachine, result.snapshot) } })
}

/** Journals `submit` on the tracking id, submits, and on an immediate refusal frees it again. */
export const submitTracked = (
  wallet: WalletContext,
  party: PartyId,
  kind: TrackedKind,
  trackingId: string,
  key: string,
  actAs: ReadonlyArray<PartyId>,
  commandId: string,
  commands: ReadonlyArray<Command>,
  disclosed: ReadonlyArray<ActiveContract>,
  inputs: ReadonlyArray<ContractId>
): Effect.Effect<void, WalletError> =>
  Effect.gen(function* () {
    const previous = wallet.state.tracking.get(key)
    const snapshot = previous === undefined ? start(trackingIdMachine, { trackingId }) : restoreSnapshot(trackingIdMachine, previous.tracking)
    const record: TrackingRecord = previous ?? { kind, party, trackingId, commandId, tracking: persistSnapshot(trackingIdMachine, snapshot) }
    const stepped = step(trackingIdMachine, snapshot, { type: "submit" })
    invariant(stepped.accepted, "a free tracking id accepts a submission")
    const inProgress: TrackingRecord = { ...record, commandId, tracking: persistSnapshot(trackingIdMachine, stepped.snapshot) }
    wallet.apply({ _tag: "TrackingIdChanged", key, record: inProgress })
    const result = yield* Effect.either(submit(wallet, actAs, [], commandId, commands, disclosed, inputs))
    if (Either.isLeft(result)) {
      // An in-flight duplicate means the first submission still runs: leave the id in progress.
      if (result.left.code !== "SUBMISSION_ALREADY_IN_FLIGHT") stepTracking(wallet, key, inProgress, { type: "fail", reason: result.left.reason })
      return yield* result.left
    }
  })

/** The payload of a contract created in a committed update (the ledger is the record of what was asked). */
const createdPayload = <P>(wallet: WalletContext, updateId: string, contractId: ContractId): P | undefined => {
  const entry = wallet.participant.logic.updateById(updateId)
  if (entry === undefined || entry.update.kind !== "transaction") return undefined
  for (const node of entry.update.nodes) if (node.kind === "created" && node.contractId === contractId) return node.createArguments as unknown as P
  return undefined
}

/** Steps a tracking id on its command's completion and starts the lifecycle of what it created. */
export const onTrackedCompletion = (wallet: WalletContext, commandId: string, completion: Completion): void => {
  const key = wallet.state.trackingByCommand.get(commandId)
  const record = key === undefined ? undefined : wallet.state.tracking.get(key)
  if (key === undefined || record === undefined || record.tracking.state !== "inProgress" || record.commandId !== commandId) return
  if (completion._tag === "Failed") {
    stepTracking(wallet, key, record, { type: "fail", reason: `${completion.code}: ${completion.reason}` })
    return
  }
  const contractId = createdContractOf(record.kind, completion.results[0] ?? null)
  invariant(contractId !== undefined, () => `the ${record.kind} command of ${record.trackingId} names the contract it created`)
  stepTracking(wallet, key, record, { type: "succeed", contractId })
  switch (record.kind) {
    case "transferOffer":
      return startOffer(wallet, key, record, contractId, completion.updateId)
    case "tokenStandardTransfer":
      return startInstruction(wallet, key, record, contractId, completion.updateId)
    case "buyTraffic":
      return startBuyTraffic(wallet, key, record, contractId, completion.updateId)
  }
}

/** The offer a tracked command created starts its lifecycle (created). */
const startOffer = (wallet: WalletContext, key: string, record: TrackingRecord, contractId: ContractId, updateId: string): void => {
  const p = createdPayload<TransferOfferPayload>(wallet, updateId, contractId)
  invariant(p !== undefined, "a created offer is in the update that created it")
  const offer = start(transferOfferMachine, {
    offerContractId: contractId,
    trackingId: record.trackingId,
    sender: record.party,
    receiver: p.receiver,
    amount: p.amount.amount,
    description: p.description,
    expiresAt: expiryOf(p.expiresAt)
  })
  wallet.stats.offersCreated++
  wallet.apply({
    _tag: "OfferChanged",
    key,
    record: {
      trackingId: record.trackingId,
      sender: record.party,
      offer: persistSnapshot(transferOfferMachine, offer),
      offerContractId: contractId,
      createdTransactionId: updateId,
      acceptedContractId: null,
      acceptedTransactionId: null,
      completedContractId: null,
      completedTransactionId: null,
      failureKind: null,
      withdrawnReason: null
    }
  })
}

/** The transfer instruction a tracked command created starts its lifecycle (pending). */
const startInstruction = (wallet: WalletContext, key: string, record: TrackingRecord, contractId: ContractId, updateId: string): void => {
  const p = createdPayload<CoinTransferInstructionPayload>(wallet, updateId, contractId)
  invariant(p !== undefined, "a created instruction is in the update that created it")
  const snapshot = start(transferInstructionMachine, {
    instructionId: contractId,
    sender: record.party,
    receiver: p.transfer.receiver,
    amount: p.transfer.amount,
    lockedHoldingIds: [p.lockedCoin],
    expiresAt: expiryOf(p.transfer.executeBefore)
  })
  wallet.stats.tokenTransfersCreated++
  wallet.apply({
    _tag: "InstructionChanged",
    key,
    record: {
      trackingId: record.trackingId,
      sender: record.party,
      instruction: persistSnapshot(transferInstructionMachine, snapshot),
      createdTransactionId: updateId,
      finalTransactionId: null,
      receiverHoldingCids: []
    }
  })
}

/** The buy-traffic request a tracked command created starts its lifecycle (created). */
const startBuyTraffic = (wallet: WalletContext, key: string, record: TrackingRecord, contractId: ContractId, updateId: string): void => {
  const p = createdPayload<BuyTrafficRequestPayload>(wallet, updateId, contractId)
  invariant(p !== undefined, "a created buy-traffic request is in the update that created it")
  const snapshot = start(buyTrafficRequestMachine, {
    trackingId: record.trackingId,
    endUserParty: record.party,
    memberId: p.memberId,
    synchronizerId: p.synchronizerId,
    migrationId: Number(p.migrationId),
    trafficAmount: Number(p.trafficAmount),
    expiresAt: expiryOf(p.expiresAt)
  })
  wallet.stats.buyTrafficRequests++
  wallet.apply({
    _tag: "BuyTrafficChanged",
    key,
    record: { trackingId: record.trackingId, party: record.party, request: persistSnapshot(buyTrafficRequestMachine, snapshot), requestContractId: contractId, completedTransactionId: null }
  })
}

/** Tracking ids left in progress by a restart: settle them from the participant's completions. */
export const reconcile = (wallet: WalletContext): void => {
  for (const record of [...wallet.state.tracking.underWayRecords()]) {
    if (record.tracking.state !== "inProgress" || wallet.participant.logic.isInFlight(record.commandId, [record.party])) continue
    const completion = wallet.participant.logic.completionOf(record.commandId, [record.party])
    if (completion !== undefined) onTrackedCompletion(wallet, record.commandId, completion)
  }
}


/** The contract a tracked command created, from its root result. */
const createdContractOf = (kind: TrackedKind, result: Json): string | undefined => {
  if (kind === "tokenStandardTransfer") {
    const value = (result as { output?: { value?: { transferInstructionCid?: string } } } | null)?.output?.value?.transferInstructionCid
    return typeof value === "string" ? value : undefined
  }
  return typeof result === "string" ? result : undefined
}
