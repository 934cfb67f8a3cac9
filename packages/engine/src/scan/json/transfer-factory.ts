/**
 * The transfer factory with its choice context (token-standard-transfer-instruction-v1
 * TransferFactoryWithChoiceContext), rendered.
 */
import { Either } from "effect"
import type { ContractNotActive } from "@sandnet/core"
import type { DsoContractNotFound, InstrumentNotFound } from "../errors.ts"
import type { RegistryContext } from "../registry.ts"
import { transferFactoryContext, type TransferFactoryContext, type TransferFactoryRequest, type TransferKind } from "../transfer-factory.ts"
import { ChoiceContextKeys, disclosedContract, type ChoiceContextJson } from "./registry.ts"

export interface TransferFactoryJson {
  readonly factoryId: string
  readonly transferKind: TransferKind
  readonly choiceContext: ChoiceContextJson
}

export const renderTransferFactory = (found: TransferFactoryContext, excludeDebugFields: boolean): TransferFactoryJson => ({
  factoryId: found.factory.created.contractId,
  transferKind: found.transferKind,
  choiceContext: {
    choiceContextData: {
      values: {
        [ChoiceContextKeys.coinRules]: { tag: "AV_ContractId", value: found.coinRules.created.contractId },
        [ChoiceContextKeys.openRound]: { tag: "AV_ContractId", value: found.openRound.created.contractId },
        ...(found.preapproval === undefined ? {} : { [ChoiceContextKeys.transferPreapproval]: { tag: "AV_ContractId", value: found.preapproval.created.contractId } })
      }
    },
    disclosedContracts: [found.coinRules, found.openRound, found.factory, ...(found.preapproval === undefined ? [] : [found.preapproval])].map((c) =>
      disclosedContract(c, excludeDebugFields)
    )
  }
})

/** POST /registry/transfer-instruction/v1/transfer-factory: the factory and its context, rendered. */
export const transferFactory = (
  context: RegistryContext,
  request: TransferFactoryRequest,
  excludeDebugFields: boolean
): Either.Either<TransferFactoryJson, InstrumentNotFound | DsoContractNotFound | ContractNotActive> =>
  Either.map(transferFactoryContext(context, request), (found) => renderTransferFactory(found, excludeDebugFields))
