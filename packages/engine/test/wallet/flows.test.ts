import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { micros } from "@sandnet/core"
import { makeEconomy, op } from "./support.ts"

describe("wallet flows", () => {
  it.effect("onboards, taps, and moves coin by offer, preapproval and token-standard transfer", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy()
      const [w1, w2] = e.wallets
      yield* op(e, w1!.onboardUser({ name: "alice" }))
      const bob = yield* op(e, w2!.onboardUser({ name: "bob" }))
      yield* op(e, w1!.tap("alice", { amount: "1000" }))
      const balance = yield* op(e, w1!.getBalance("alice"))
      expect(balance.effective_unlocked_qty).toBe("1000.0000000000")
      // Legacy offer: bob accepts, alice's automation pays.
      const offer = yield* op(e, w1!.createTransferOffer("alice", { receiver_party_id: bob.party_id, amount: "10", description: "lunch", expires_at: e.clock.now + micros.hours(1), tracking_id: "t1" }))
      expect((yield* op(e, w1!.getTransferOfferStatus("alice", "t1"))).status).toBe("created")
      yield* op(e, w2!.acceptTransferOffer("bob", offer.offer_contract_id))
      yield* e.advance(micros.seconds(1))
      expect((yield* op(e, w1!.getTransferOfferStatus("alice", "t1"))).status).toBe("completed")
      expect((yield* op(e, w2!.getBalance("bob"))).effective_unlocked_qty).toBe("10.0000000000")
      // One step through bob's preapproval.
      yield* op(e, w2!.createTransferPreapproval("bob"))
      const sent = yield* op(e, w1!.transferPreapprovalSend("alice", { receiver_party_id: bob.party_id, amount: "5", deduplication_id: "d1" }))
      expect(sent.featured).toBe(false)
      expect((yield* op(e, w2!.getBalance("bob"))).effective_unlocked_qty).toBe("15.0000000000")
      // Token standard: locked, then accepted.
      const created = yield* op(e, w1!.createTokenStandardTransfer("alice", { receiver_party_id: bob.party_id, amount: "7", description: "rent", expires_at: e.clock.now + micros.hours(1), tracking_id: "ts1" }))
      const cid = "transfer_instruction_cid" in created.output ? created.output.transfer_instruction_cid : ""
      expect((yield* op(e, w1!.getBalance("alice"))).effective_locked_qty).not.toBe("0.0000000000")
      const accepted = yield* op(e, w2!.acceptTokenStandardTransfer("bob", cid))
      expect("receiver_holding_cids" in accepted.output).toBe(true)
      expect((yield* op(e, w2!.getBalance("bob"))).effective_unlocked_qty).toBe("22.0000000000")
      expect((yield* op(e, w1!.getBalance("alice"))).effective_locked_qty).toBe("0.0000000000")
      const history = yield* op(e, w1!.listTransactions("alice", { page_size: 20 }))
      expect(history.items.map((i) => i.transaction_type)).toContain("transfer")
    })
  )
})
