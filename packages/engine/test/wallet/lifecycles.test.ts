import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { start, step, transferInstructionMachine, transferOfferMachine } from "../../src/index.ts"
import { allowed } from "../../src/wallet/lifecycles.ts"

const offer = start(transferOfferMachine, {
  offerContractId: "offer-1",
  trackingId: "t",
  sender: "alice::ns",
  receiver: "bob::ns",
  amount: "1.0000000000",
  description: "",
  expiresAt: 1_000
})

describe("the wallet asks the lifecycle before it acts", () => {
  it("an open offer can be accepted before its expiry, rejected and withdrawn", () => {
    expect(Either.isRight(allowed(transferOfferMachine, offer, { type: "accept", ledgerTime: 999 }, "offer-1", "exp"))).toBe(true)
    expect(Either.isRight(allowed(transferOfferMachine, offer, { type: "reject" }, "offer-1", "exp"))).toBe(true)
    expect(Either.isRight(allowed(transferOfferMachine, offer, { type: "withdraw" }, "offer-1", "exp"))).toBe(true)
  })

  it("an accept at or after the expiry is OfferExpired; a step a closed lifecycle does not take is LifecycleStepRefused", () => {
    const late = allowed(transferOfferMachine, offer, { type: "accept", ledgerTime: 1_000 }, "offer-1", "exp")
    expect(Either.isLeft(late) && late.left._tag).toBe("OfferExpired")
    const rejected = step(transferOfferMachine, offer, { type: "reject" })
    expect(rejected.accepted).toBe(true)
    const withdraw = allowed(transferOfferMachine, rejected.snapshot, { type: "withdraw" }, "offer-1", "exp")
    expect(Either.isLeft(withdraw) && withdraw.left._tag).toBe("LifecycleStepRefused")
    expect(Either.isLeft(withdraw) && withdraw.left._tag === "LifecycleStepRefused" && withdraw.left.state).toBe("rejected")
  })

  it("a transfer instruction follows the same expiry rule", () => {
    const instruction = start(transferInstructionMachine, {
      instructionId: "i-1",
      sender: "alice::ns",
      receiver: "bob::ns",
      amount: "2.0000000000",
      lockedHoldingIds: ["coin-1"],
      expiresAt: 500
    })
    expect(Either.isRight(allowed(transferInstructionMachine, instruction, { type: "accept", ledgerTime: 499 }, "i-1", "exp"))).toBe(true)
    const late = allowed(transferInstructionMachine, instruction, { type: "accept", ledgerTime: 500 }, "i-1", "exp")
    expect(Either.isLeft(late) && late.left._tag).toBe("OfferExpired")
  })
})
