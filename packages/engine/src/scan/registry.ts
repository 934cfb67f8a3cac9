/**
 * The token-standard registry's reads over the DSO's contracts (sv1's ACS): the contracts a
 * transfer instruction's choice needs (its choice context) and the coin's total supply. Domain
 * values; scan/json/registry.ts renders them.
 */
import { Either } from "effect"
import { ContractNotActive, parseIso, type ActiveContract, type CreatedNode, type Micros, type PartyId } from "@sandnet/core"
import { currentAmount, type CoinPayload, type LockedCoinPayload } from "../coin/coin.ts"
import type { CoinNetwork, SuperValidatorNode } from "../coin-network.ts"
import type { TemplateRegistry } from "../ledger/template.ts"
import type { ParticipantLogic } from "../participant/index.ts"
import { contractsOf, createdOf, currentDsoContract, knownContract, type KnownContract } from "./contracts.ts"
import { DsoContractNotFound, LockedHoldingNotFound, TransferInstructionNotFound } from "./errors.ts"
import { ScanTemplates, TRANSFER_INSTRUCTION_INTERFACE, asObject, isTemplate } from "./templates.ts"

const ok = Either.right
const err = Either.left

export type TransferInstructionChoice = "accept" | "reject" | "withdraw"

export interface RegistryContext {
  readonly logic: ParticipantLogic
  readonly registry: TemplateRegistry
  readonly dso: PartyId
  /** Ledger time now (the open round must have opened). */
  readonly now: Micros
}

/** The registry's context on the scan's node: `sv`'s participant, the network's templates and DSO party, at `now`. */
export const registryContextOf = (network: CoinNetwork, sv: SuperValidatorNode, now: Micros): RegistryContext => ({
  logic: sv.participant.logic,
  registry: network.registry,
  dso: network.dso,
  now
})

/**
 * The contracts of a transfer instruction's choice context: the coin rules, the newest usable open
 * round and the locked holding while the lock exists; only the lock's release once it is gone.
 */
export type TransferInstructionContext =
  | { readonly _tag: "LockReleased" }
  | { readonly _tag: "Locked"; readonly coinRules: ActiveContract; readonly openRound: ActiveContract; readonly lockedHolding: ActiveContract }

const isTransferInstruction = (created: CreatedNode): boolean =>
  isTemplate(created, ScanTemplates.coinTransferInstruction) || Object.keys(created.interfaceViews).some((id) => id.endsWith(TRANSFER_INSTRUCTION_INTERFACE))

export const beingReassigned = (contractId: string, what: string): ContractNotActive =>
  new ContractNotActive({ contractId, reason: `${what} is being reassigned to another synchronizer; retry once it is assigned` })

/** An active contract that must be disclosed: 409 while it is in flight. */
export const requireAssigned = (
  known: KnownContract | undefined,
  what: string
): Either.Either<ActiveContract | undefined, ContractNotActive> => {
  if (known === undefined) return ok(undefined)
  if (known._tag === "inFlight") return err(beingReassigned(known.entry.contract.created.contractId, what))
  return ok(known.contract)
}

/** The newest open mining round that has opened (the one transfers use). */
export const latestUsableOpenRound = (context: RegistryContext): KnownContract | undefined => {
  let best: KnownContract | undefined
  let bestRound = -1
  for (const c of contractsOf(context.logic, context.registry, ScanTemplates.openMiningRound, context.dso)) {
    const payload = createdOf(c).createArguments
    const opensAt = typeof payload["opensAt"] === "string" ? parseIso(payload["opensAt"]) : undefined
    const round = Number(asObject(payload["round"])?.["number"] ?? -1)
    if (opensAt === undefined || opensAt > context.now) continue
    if (round > bestRound) {
      best = c
      bestRound = round
    }
  }
  return best
}

/**
 * R1 (and accept / withdraw): the contracts of a transfer instruction's choice context, as
 * Splice's registry picks them (getTwoStepTransferContext): the coin rules, the newest usable open
 * round and the locked holding while the lock exists. When the locked holding is gone (the lock
 * expired and was released), reject and withdraw get only the release; accept fails (404). A
 * contract that is being reassigned cannot be disclosed with a synchronizer: 409.
 */
export const transferInstructionContext = (
  context: RegistryContext,
  instructionId: string,
  choice: TransferInstructionChoice
): Either.Either<TransferInstructionContext, TransferInstructionNotFound | LockedHoldingNotFound | DsoContractNotFound | ContractNotActive> => {
  const instruction = knownContract(context.logic, instructionId)
  if (instruction === undefined || !isTransferInstruction(createdOf(instruction))) {
    return err(new TransferInstructionNotFound({ contractId: instructionId }))
  }
  if (instruction._tag === "inFlight") return err(beingReassigned(instructionId, `transfer instruction ${instructionId}`))
  const payload = instruction.contract.created.createArguments
  const lockedId = typeof payload["lockedCoin"] === "string" ? payload["lockedCoin"] : undefined
  const locked = requireAssigned(lockedId === undefined ? undefined : knownContract(context.logic, lockedId), `locked holding ${lockedId}`)
  if (Either.isLeft(locked)) return Either.left(locked.left)
  if (locked.right === undefined) {
    if (choice === "accept") {
      const executeBefore = asObject(payload["transfer"])?.["executeBefore"]
      return err(
        new LockedHoldingNotFound({
          contractId: lockedId ?? "",
          instructionId,
          expiresAt: typeof executeBefore === "string" ? executeBefore : "unknown"
        })
      )
    }
    return ok({ _tag: "LockReleased" })
  }
  return lockedContext(context, locked.right)
}

/** The context of a choice on a locked holding: the coin rules and the newest usable open round with it. */
export const lockedContext = (
  context: RegistryContext,
  lockedHolding: ActiveContract
): Either.Either<TransferInstructionContext, DsoContractNotFound | ContractNotActive> => {
  const rules = requireAssigned(currentDsoContract(context.logic, context.registry, context.dso, ScanTemplates.coinRules), "the CoinRules contract")
  if (Either.isLeft(rules)) return Either.left(rules.left)
  if (rules.right === undefined) return err(new DsoContractNotFound({ template: "CoinRules" }))
  const round = requireAssigned(latestUsableOpenRound(context), "the open mining round")
  if (Either.isLeft(round)) return Either.left(round.left)
  if (round.right === undefined) return err(new DsoContractNotFound({ template: "OpenMiningRound" }))
  return ok({ _tag: "Locked", coinRules: rules.right, openRound: round.right, lockedHolding })
}

/** The coin's total supply as of a ledger time. */
export interface CoinSupply {
  readonly total: bigint
  readonly asOf: Micros
}

/**
 * The coin's total supply: the sum of the current amounts (initial amount less the holding fee
 * accrued up to the newest usable open round) of every active Coin and LockedCoin, as of `now`;
 * undefined before the first open round.
 */
export const coinSupply = (context: RegistryContext): CoinSupply | undefined => {
  const round = latestUsableOpenRound(context)
  if (round === undefined) return undefined
  const roundNumber = Number(asObject(createdOf(round).createArguments["round"])?.["number"] ?? 0)
  let total = 0n
  for (const c of contractsOf(context.logic, context.registry, ScanTemplates.coin, context.dso)) {
    total += currentAmount((createdOf(c).createArguments as unknown as CoinPayload).amount, roundNumber)
  }
  for (const c of contractsOf(context.logic, context.registry, ScanTemplates.lockedCoin, context.dso)) {
    total += currentAmount((createdOf(c).createArguments as unknown as LockedCoinPayload).coin.amount, roundNumber)
  }
  return { total, asOf: context.now }
}
