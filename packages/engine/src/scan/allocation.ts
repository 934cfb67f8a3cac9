/**
 * The token-standard registry's allocation reads (token-standard-allocation-instruction-v1
 * getAllocationFactory, token-standard-allocation-v1 getAllocation{Transfer,Withdraw,Cancel}Context):
 * the allocation factory (ExternalPartyCoinRules implements AllocationFactory) with the contracts
 * AllocationFactory_Allocate needs, and the choice context of an allocation's choices, rendered.
 */
import { Either } from "effect"
import type { ContractNotActive } from "@sandnet/core"
import { AllocationNotFound, DsoContractNotFound, InstrumentNotFound, LockedHoldingNotFound } from "./errors.ts"
import { createdOf, knownContract } from "./contracts.ts"
import { beingReassigned, lockedContext, requireAssigned, type RegistryContext, type TransferInstructionContext } from "./registry.ts"
import { ALLOCATION_INTERFACE, ScanTemplates, asObject, isTemplate } from "./templates.ts"
import { factoryContracts } from "./transfer-factory.ts"
import { ChoiceContextKeys, disclosedContract, renderChoiceContext, type ChoiceContextJson } from "./json/registry.ts"

export type AllocationChoice = "execute-transfer" | "withdraw" | "cancel"

/** What of AllocationFactory_Allocate's arguments picks the factory: the leg's instrument. */
export interface AllocationFactoryRequest {
  readonly instrumentAdmin: string
  readonly instrumentId: string
}

export interface AllocationFactoryJson {
  readonly factoryId: string
  readonly choiceContext: ChoiceContextJson
}

/** POST /registry/allocation-instruction/v1/allocation-factory: the factory, the coin rules and open round, disclosed. */
export const allocationFactory = (
  context: RegistryContext,
  request: AllocationFactoryRequest,
  excludeDebugFields: boolean
): Either.Either<AllocationFactoryJson, InstrumentNotFound | DsoContractNotFound | ContractNotActive> =>
  Either.map(factoryContracts(context, request), (found) => ({
    factoryId: found.factory.created.contractId,
    choiceContext: {
      choiceContextData: {
        values: {
          [ChoiceContextKeys.coinRules]: { tag: "AV_ContractId", value: found.coinRules.created.contractId },
          [ChoiceContextKeys.openRound]: { tag: "AV_ContractId", value: found.openRound.created.contractId }
        }
      },
      disclosedContracts: [found.coinRules, found.openRound, found.factory].map((c) => disclosedContract(c, excludeDebugFields))
    }
  }))

/**
 * The contracts of an allocation's choice: the coin rules, the newest usable open round and the
 * locked holding while the lock exists. Once the lock is gone (expired and released), withdraw and
 * cancel get only the release and executing fails (404). 404 for an id that is not an allocation,
 * 409 while it or its holding is being reassigned.
 */
export const allocationContext = (
  context: RegistryContext,
  allocationId: string,
  choice: AllocationChoice
): Either.Either<TransferInstructionContext, AllocationNotFound | LockedHoldingNotFound | DsoContractNotFound | ContractNotActive> => {
  const allocation = knownContract(context.logic, allocationId)
  const created = allocation === undefined ? undefined : createdOf(allocation)
  if (allocation === undefined || created === undefined) return Either.left(new AllocationNotFound({ contractId: allocationId }))
  const isAllocation =
    isTemplate(created, ScanTemplates.coinAllocation) || Object.keys(created.interfaceViews).some((id) => id.endsWith(ALLOCATION_INTERFACE))
  if (!isAllocation) return Either.left(new AllocationNotFound({ contractId: allocationId }))
  if (allocation._tag === "inFlight") return Either.left(beingReassigned(allocationId, `allocation ${allocationId}`))
  const payload = created.createArguments
  const lockedId = typeof payload["lockedCoin"] === "string" ? payload["lockedCoin"] : undefined
  const locked = requireAssigned(lockedId === undefined ? undefined : knownContract(context.logic, lockedId), `locked holding ${lockedId}`)
  if (Either.isLeft(locked)) return Either.left(locked.left)
  if (locked.right !== undefined) return lockedContext(context, locked.right)
  if (choice !== "execute-transfer") return Either.right({ _tag: "LockReleased" })
  const settleBefore = asObject(asObject(payload["allocation"])?.["settlement"])?.["settleBefore"]
  return Either.left(
    new LockedHoldingNotFound({ contractId: lockedId ?? "", instructionId: allocationId, expiresAt: typeof settleBefore === "string" ? settleBefore : "unknown" })
  )
}

/** POST /registry/allocations/v1/{allocationId}/choice-contexts/{choice}: the context, rendered. */
export const allocationChoiceContext = (
  context: RegistryContext,
  allocationId: string,
  choice: AllocationChoice,
  excludeDebugFields: boolean
): Either.Either<ChoiceContextJson, AllocationNotFound | LockedHoldingNotFound | DsoContractNotFound | ContractNotActive> =>
  Either.map(allocationContext(context, allocationId, choice), (found) => renderChoiceContext(found, excludeDebugFields))
