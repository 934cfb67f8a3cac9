/**
 * The wallet remembers the live snapshots of the latest lifecycles it persisted, a bounded number:
 * a lifecycle persisted long before (an instruction under way for a day) is restored from its
 * persisted form and steps as the remembered one would.
 */
import { describe, expect, it } from "@effect/vitest"
import { contextOf, start, stateOf, step } from "../../src/machines/lifecycle.ts"
import { transferInstructionMachine } from "../../src/machines/transfer-instruction.ts"
import { persistSnapshot, restoreSnapshot } from "../../src/wallet/snapshots.ts"

const instruction = (i: number) =>
  start(transferInstructionMachine, {
    instructionId: `00${i.toString(16).padStart(136, "0")}`,
    sender: `alice::1220${"a".repeat(64)}`,
    receiver: `bob::1220${"b".repeat(64)}`,
    amount: "1.0000000000",
    lockedHoldingIds: [`00${"c".repeat(136)}`],
    expiresAt: 2_000_000
  })

describe("the wallet's live lifecycle snapshots", () => {
  it("restores a lifecycle persisted before thousands of others and steps it as the one persisted", () => {
    const first = instruction(0)
    const persisted = persistSnapshot(transferInstructionMachine, first)
    expect(restoreSnapshot(transferInstructionMachine, persisted)).toBe(first)
    for (let i = 1; i <= 3_000; i++) persistSnapshot(transferInstructionMachine, instruction(i))
    const restored = restoreSnapshot(transferInstructionMachine, persisted)
    expect(restored).not.toBe(first)
    expect(stateOf(restored)).toBe(stateOf(first))
    expect(contextOf<typeof transferInstructionMachine>(restored)).toEqual(contextOf<typeof transferInstructionMachine>(first))
    const event = { type: "accept", ledgerTime: 1_000_000 } as const
    const a = step(transferInstructionMachine, first, event)
    const b = step(transferInstructionMachine, restored, event)
    expect(a.accepted).toBe(true)
    expect(b.accepted).toBe(true)
    expect(stateOf(b.snapshot)).toBe(stateOf(a.snapshot))
  })
})
