import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { formatAmount, micros, type PartyId } from "@sandnet/core"
import { sumHoldings } from "../../src/wallet/holding-totals.ts"
import { makeEconomy, op } from "./support.ts"

type Step =
  | { readonly kind: "tap"; readonly who: 0 | 1; readonly cents: number }
  | { readonly kind: "offer"; readonly from: 0 | 1; readonly cents: number }
  | { readonly kind: "token"; readonly from: 0 | 1; readonly cents: number; readonly decision: "accept" | "reject" | "withdraw" }
  | { readonly kind: "advance"; readonly minutes: number }

const who = fc.constantFrom<0 | 1>(0, 1)
const cents = fc.integer({ min: 1, max: 50_000 })
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("tap" as const), who, cents }),
  fc.record({ kind: fc.constant("offer" as const), from: who, cents }),
  fc.record({ kind: fc.constant("token" as const), from: who, cents, decision: fc.constantFrom("accept" as const, "reject" as const, "withdraw" as const) }),
  fc.record({ kind: fc.constant("advance" as const), minutes: fc.integer({ min: 0, max: 40 }) })
)

describe("kept holding totals", () => {
  it("equal the sum over the party's holdings after every tap, offer, token-standard transfer, merge and round", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 14 }), (steps) =>
        Effect.runPromise(
          Effect.gen(function* () {
            // merges from the third holding on, so that the automation archives coins too
            const e = yield* makeEconomy({}, () => ({ merge: { maxHoldings: 2 } }))
            const wallets = e.wallets
            const users = ["alice", "bob"] as const
            const parties: Array<PartyId> = []
            for (const [i, name] of users.entries()) parties.push((yield* op(e, wallets[i]!.onboardUser({ name }))).party_id as PartyId)
            const check = () => {
              for (const [i, w] of wallets.entries()) {
                const now = e.clock.now
                const kept = w.node.balanceOf(parties[i]!, now)
                expect(kept).toEqual(sumHoldings(w.node.participant.logic.acs, parties[i]!, w.node.currentRound(now)))
              }
            }
            check()
            for (const [n, step] of steps.entries()) {
              const amount = (c: number) => formatAmount(BigInt(c) * 100_000_000n)
              if (step.kind === "tap") yield* Effect.either(op(e, wallets[step.who]!.tap(users[step.who], { amount: amount(step.cents), command_id: `tap${n}` })))
              else if (step.kind === "advance") yield* e.advance(micros.minutes(step.minutes))
              else {
                const from = step.from
                const to = (1 - from) as 0 | 1
                const request = { receiver_party_id: parties[to]!, amount: amount(step.cents), description: "p", expires_at: e.clock.now + micros.hours(1), tracking_id: `t${n}` }
                if (step.kind === "offer") {
                  const offer = yield* Effect.either(op(e, wallets[from]!.createTransferOffer(users[from], request)))
                  if (offer._tag === "Right") yield* Effect.either(op(e, wallets[to]!.acceptTransferOffer(users[to], offer.right.offer_contract_id)))
                } else {
                  const created = yield* Effect.either(op(e, wallets[from]!.createTokenStandardTransfer(users[from], request)))
                  check()
                  const cid = created._tag === "Right" && "transfer_instruction_cid" in created.right.output ? created.right.output.transfer_instruction_cid : undefined
                  if (cid !== undefined && step.decision === "accept") yield* Effect.either(op(e, wallets[to]!.acceptTokenStandardTransfer(users[to], cid)))
                  if (cid !== undefined && step.decision === "reject") yield* Effect.either(op(e, wallets[to]!.rejectTokenStandardTransfer(users[to], cid)))
                  if (cid !== undefined && step.decision === "withdraw") yield* Effect.either(op(e, wallets[from]!.withdrawTokenStandardTransfer(users[from], cid)))
                }
                yield* e.advance(micros.seconds(1))
              }
              check()
            }
          })
        )
      ),
      { numRuns: 40 }
    )
  }, 120_000)
})
