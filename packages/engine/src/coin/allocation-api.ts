/**
 * The token standard's allocation interfaces (splice-api-token-allocation-v1 and
 * splice-api-token-allocation-instruction-v1): the Allocation a sender's holdings are locked in for
 * one transfer leg of a settlement, and the AllocationFactory that creates it. The coin implements
 * them in allocation.ts (CoinAllocation) and on ExternalPartyCoinRules (the factory).
 */
import { AllocationApiPackage, AllocationInstructionApiPackage } from "./packages.ts"
import { defineInterface } from "../ledger/template.ts"

export const AllocationInterface = defineInterface({
  pkg: AllocationApiPackage,
  module: "Splice.Api.Token.AllocationV1",
  entity: "Allocation",
  choices: [
    { name: "Allocation_ExecuteTransfer", consuming: true },
    { name: "Allocation_Withdraw", consuming: true },
    { name: "Allocation_Cancel", consuming: true }
  ]
})

export const AllocationFactoryInterface = defineInterface({
  pkg: AllocationInstructionApiPackage,
  module: "Splice.Api.Token.AllocationInstructionV1",
  entity: "AllocationFactory",
  choices: [{ name: "AllocationFactory_Allocate", consuming: false }]
})
