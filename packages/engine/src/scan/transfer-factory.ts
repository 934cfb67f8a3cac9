/**
 * The token standard's transfer factory as the registry hands it out (Splice's
 * getTransferFactory): the DSO's ExternalPartyCoinRules (it implements TransferFactory) with the
 * context its TransferFactory_Transfer needs, the coin rules and the newest usable open round. The
 * kind says what the transfer will be: `self` when sender and receiver are one party, otherwise
 * `offer`: the coin is locked and the receiver accepts (this node's factory makes no direct
 * transfers through a preapproval). Domain values; json/transfer-factory.ts renders them.
 */
import { Either } from "effect"
import type { ActiveContract, ContractNotActive } from "@sandnet/core"
import { COIN_INSTRUMENT } from "../coin/coin.ts"
import { expiryOf, isExpired } from "../coin/expiry.ts"
import { activeOf, createdOf, currentDsoContract, transferPreapprovalOf } from "./contracts.ts"
import { DsoContractNotFound, InstrumentNotFound } from "./errors.ts"
import { latestUsableOpenRound, requireAssigned, type RegistryContext } from "./registry.ts"
import { ScanTemplates, payloadField } from "./templates.ts"

export type TransferKind = "self" | "direct" | "offer"

export interface TransferFactoryContext {
  readonly factory: ActiveContract
  readonly coinRules: ActiveContract
  readonly openRound: ActiveContract
  readonly transferKind: TransferKind
  /** The receiver's preapproval, for a direct transfer. */
  readonly preapproval?: ActiveContract
}

/** What of the choice's arguments picks the factory: the instrument and the two parties. */
export interface TransferFactoryRequest {
  readonly instrumentAdmin: string
  readonly instrumentId: string
  readonly sender: string
  readonly receiver: string
}

const required = (
  found: Either.Either<ActiveContract | undefined, ContractNotActive>,
  template: string
): Either.Either<ActiveContract, ContractNotActive | DsoContractNotFound> =>
  Either.flatMap(found, (contract) => (contract === undefined ? Either.left(new DsoContractNotFound({ template })) : Either.right(contract)))

/**
 * The transfer factory of the coin: 404 (InstrumentNotFound) for another instrument or admin, 404
 * (DsoContractNotFound) without the DSO's rules or an open round, 409 while one is being
 * reassigned.
 */
/** The factory (ExternalPartyCoinRules), the coin rules and the newest usable open round, for the coin instrument only. */
export const factoryContracts = (
  context: RegistryContext,
  instrument: { readonly instrumentAdmin: string; readonly instrumentId: string }
): Either.Either<Omit<TransferFactoryContext, "transferKind">, InstrumentNotFound | DsoContractNotFound | ContractNotActive> => {
  if (instrument.instrumentId !== COIN_INSTRUMENT || instrument.instrumentAdmin !== context.dso) {
    return Either.left(new InstrumentNotFound({ instrumentId: instrument.instrumentId }))
  }
  const dsoContract = (reference: string, what: string) =>
    requireAssigned(currentDsoContract(context.logic, context.registry, context.dso, reference), what)
  return Either.all({
    factory: required(dsoContract(ScanTemplates.externalPartyCoinRules, "the ExternalPartyCoinRules contract"), "ExternalPartyCoinRules"),
    coinRules: required(dsoContract(ScanTemplates.coinRules, "the CoinRules contract"), "CoinRules"),
    openRound: required(requireAssigned(latestUsableOpenRound(context), "the open mining round"), "OpenMiningRound")
  })
}

export const transferFactoryContext = (
  context: RegistryContext,
  request: TransferFactoryRequest
): Either.Either<TransferFactoryContext, InstrumentNotFound | DsoContractNotFound | ContractNotActive> => {
  return factoryContracts(context, request).pipe(
    Either.map((found): TransferFactoryContext => {
      if (request.sender === request.receiver) return { ...found, transferKind: "self" }
      const preapproval = livePreapprovalOf(context, request.receiver)
      return preapproval === undefined ? { ...found, transferKind: "offer" } : { ...found, transferKind: "direct", preapproval }
    })
  )
}

/** The receiver's newest TransferPreapproval while it has not expired and is assigned (none while it is in flight). */
const livePreapprovalOf = (context: RegistryContext, receiver: string): ActiveContract | undefined => {
  const found = transferPreapprovalOf(context.logic, context.registry, receiver)
  if (Either.isLeft(found) || found.right._tag !== "active") return undefined
  const expiresAt = payloadField(createdOf(found.right), "expiresAt")
  return typeof expiresAt === "string" && !isExpired(expiryOf(expiresAt), context.now) ? activeOf(found.right) : undefined
}
