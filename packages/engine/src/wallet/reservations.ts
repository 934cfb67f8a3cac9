/**
 * Coins used by the wallet's commands in flight (released on completion), so that two commands
 * never pick the same coin.
 */
import type { ContractId } from "@sandnet/core"

export class CoinReservations {
  private readonly reserved = new Set<ContractId>()
  private readonly byCommand = new Map<string, ReadonlyArray<ContractId>>()

  has(contractId: ContractId): boolean {
    return this.reserved.has(contractId)
  }

  /** Reserves the inputs of a command until its completion. */
  reserve(commandId: string, contractIds: ReadonlyArray<ContractId>): void {
    if (contractIds.length === 0) return
    this.byCommand.set(commandId, contractIds)
    for (const id of contractIds) this.reserved.add(id)
  }

  /** The command completed: its inputs are free again (spent or not). */
  release(commandId: string): void {
    const inputs = this.byCommand.get(commandId)
    if (inputs === undefined) return
    this.byCommand.delete(commandId)
    for (const id of inputs) this.reserved.delete(id)
  }
}
