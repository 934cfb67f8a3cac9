/**
 * The registry's JSON (token standard): choice contexts with their disclosed contracts (R1) and the
 * coin instrument of the metadata API, and the read-and-render entry points the registry
 * handlers call.
 *
 * JSON rendering: it belongs to the HTTP layer and moves there with the rest of scan/json/.
 */
import { Either } from "effect"
import { formatAmount, toIso, type ActiveContract, type ContractNotActive, type JsonObject } from "@sandnet/core"
import { COIN_INSTRUMENT } from "../../coin/coin.ts"
import { ContextKeys } from "../../coin/instruction.ts"
import { createdEventBlob } from "../../queries/created-event-blob.ts"
import type { DsoContractNotFound, LockedHoldingNotFound, TransferInstructionNotFound } from "../errors.ts"
import {
  coinSupply,
  transferInstructionContext,
  type CoinSupply,
  type RegistryContext,
  type TransferInstructionChoice,
  type TransferInstructionContext
} from "../registry.ts"

export interface DisclosedContractJson {
  readonly templateId: string
  readonly contractId: string
  readonly createdEventBlob: string
  readonly synchronizerId: string
  readonly debugPackageName?: string
  readonly debugPayload?: JsonObject
  readonly debugCreatedAt?: string
}

export type AnyValueJson =
  | { readonly tag: "AV_ContractId"; readonly value: string }
  | { readonly tag: "AV_Bool"; readonly value: boolean }
  | { readonly tag: "AV_Text"; readonly value: string }

export interface ChoiceContextJson {
  readonly choiceContextData: { readonly values: { readonly [key: string]: AnyValueJson } }
  readonly disclosedContracts: ReadonlyArray<DisclosedContractJson>
}

/** Keys of the choice context, as Splice's registry names them with the product renamed. */
export const ChoiceContextKeys = {
  coinRules: ContextKeys.coinRules,
  openRound: ContextKeys.openRound,
  transferPreapproval: ContextKeys.transferPreapproval,
  expireLock: ContextKeys.expireLock
} as const

/** A contract as a choice context discloses it (with debug fields unless excluded). */
export const disclosedContract = (contract: ActiveContract, excludeDebugFields: boolean): DisclosedContractJson => ({
  templateId: contract.created.templateId,
  contractId: contract.created.contractId,
  createdEventBlob: createdEventBlob(contract),
  synchronizerId: contract.synchronizerId,
  ...(excludeDebugFields
    ? {}
    : {
        debugPackageName: contract.created.packageName,
        debugPayload: contract.created.createArguments,
        debugCreatedAt: toIso(contract.created.createdAt)
      })
})

/** A choice context: `expire-lock` false alone once the lock is released; otherwise the contracts' ids and their disclosure. */
export const renderChoiceContext = (context: TransferInstructionContext, excludeDebugFields: boolean): ChoiceContextJson =>
  context._tag === "LockReleased"
    ? { choiceContextData: { values: { [ChoiceContextKeys.expireLock]: { tag: "AV_Bool", value: false } } }, disclosedContracts: [] }
    : {
        choiceContextData: {
          values: {
            [ChoiceContextKeys.coinRules]: { tag: "AV_ContractId", value: context.coinRules.created.contractId },
            [ChoiceContextKeys.openRound]: { tag: "AV_ContractId", value: context.openRound.created.contractId },
            [ChoiceContextKeys.expireLock]: { tag: "AV_Bool", value: true }
          }
        },
        disclosedContracts: [
          disclosedContract(context.coinRules, excludeDebugFields),
          disclosedContract(context.openRound, excludeDebugFields),
          disclosedContract(context.lockedHolding, excludeDebugFields)
        ]
      }

/** R1 (and accept / withdraw): the choice context of a transfer instruction's choice, rendered. */
export const transferInstructionChoiceContext = (
  context: RegistryContext,
  instructionId: string,
  choice: TransferInstructionChoice,
  excludeDebugFields: boolean
): Either.Either<ChoiceContextJson, TransferInstructionNotFound | LockedHoldingNotFound | DsoContractNotFound | ContractNotActive> =>
  Either.map(transferInstructionContext(context, instructionId, choice), (found) => renderChoiceContext(found, excludeDebugFields))

/** The token standard APIs the registry implements, with their minor versions. */
export const REGISTRY_SUPPORTED_APIS: Readonly<Record<string, number>> = { "splice-api-token-metadata-v1": 1 }
/** The APIs the native coin supports. */
export const COIN_SUPPORTED_APIS: Readonly<Record<string, number>> = {
  "splice-api-token-holding-v1": 1,
  "splice-api-token-transfer-instruction-v1": 1,
  "splice-api-token-allocation-instruction-v1": 1,
  "splice-api-token-allocation-v1": 1
}

/** The native coin as the registry's metadata API describes it (token-standard-metadata-v1 Instrument). */
export interface InstrumentJson {
  readonly id: string
  readonly name: string
  readonly symbol: string
  readonly totalSupply?: string
  readonly totalSupplyAsOf?: string
  readonly decimals: number
  readonly supportedApis: Readonly<Record<string, number>>
}

/** The coin instrument, with its total supply when there is one. */
export const renderCoinInstrument = (supply: CoinSupply | undefined): InstrumentJson => {
  const base = { id: COIN_INSTRUMENT, name: "Coin", symbol: "CC" }
  const rest = { decimals: 10, supportedApis: COIN_SUPPORTED_APIS }
  if (supply === undefined) return { ...base, ...rest }
  return { ...base, totalSupply: formatAmount(supply.total), totalSupplyAsOf: toIso(supply.asOf), ...rest }
}

/** The coin instrument as of the context's `now` (see `coinSupply`). */
export const coinInstrument = (context: RegistryContext): InstrumentJson => renderCoinInstrument(coinSupply(context))
