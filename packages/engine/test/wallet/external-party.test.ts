import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto"
import { micros, toIso, type Micros } from "@sandnet/core"
import { ExternalPartyWallet, External, LedgerApi, TransferPreapproval, awaitOutcome, type Outcome, type WalletError, type WalletNode } from "../../src/index.ts"
import { makeEconomy, op, type Economy } from "./support.ts"

interface Keys {
  readonly publicHex: string
  readonly privateKey: KeyObject
}

const newKeys = (): Keys => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519")
  const spki = publicKey.export({ format: "der", type: "spki" })
  return { publicHex: spki.subarray(spki.length - 32).toString("hex"), privateKey }
}

const signHex = (keys: Keys, hex: string): string => sign(null, Buffer.from(hex, "hex"), keys.privateKey).toString("hex")

/** Onboards an external party on validator 0 the way the wallet admin API does. */
const onboardExternal = (e: Economy, node: WalletNode, keys: Keys, hint: string) => {
  const participant = e.network.validators[0]!.participant.logic
  const generated = Either.getOrThrow(
    External.walletGenerateExternalPartyTopology(
      { party_hint: hint, public_key: keys.publicHex },
      { participantUid: participant.uid, synchronizerId: e.network.synchronizers[0]!.info.synchronizerId }
    )
  )
  const submitted = Either.getOrThrow(
    External.walletSubmitExternalPartyTopology(
      {
        public_key: keys.publicHex,
        signed_topology_txs: generated.response.topology_txs.map((t) => ({ topology_tx: t.topology_tx, signed_hash: signHex(keys, t.hash) }))
      },
      { participantUid: participant.uid }
    )
  )
  return Either.getOrThrow(LedgerApi.hostExternalParty(node.network, node.network.topology, submitted.party, e.clock.now))
}

const now = (e: Economy): Micros => e.clock.now

describe("external parties in the wallet", () => {
  it.effect("setup proposal, signed acceptance, one-step transfers to and from the party", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy({ validators: 1 }, () => ({}), { automation: false })
      const wallet = e.wallets[0]!
      const node = wallet.node
      const finish = ExternalPartyWallet
      const keys = newKeys()
      const party = onboardExternal(e, node, keys, "ext")
      yield* op(e, wallet.onboardUser({ name: "alice" }))
      yield* op(e, wallet.tap("alice", { amount: "100" }))

      const settled = <A>(effect: Effect.Effect<Outcome<A>, WalletError>) => op(e, Effect.flatMap(effect, awaitOutcome(node, e.settle)))

      const created = yield* settled(finish.createExternalPartySetupProposal(node, { user_party_id: party }, now(e)))
      expect(finish.listExternalPartySetupProposals(node).contracts.map((c) => c.contract.contract_id)).toEqual([created.contract_id])
      // A second proposal for the same party is a conflict.
      const again = yield* Effect.either(finish.createExternalPartySetupProposal(node, { user_party_id: party }, now(e)))
      expect(Either.isLeft(again) && again.left._tag).toBe("SetupProposalAlreadyExists")

      const prepared = Either.getOrThrow(finish.prepareAcceptExternalPartySetupProposal(node, { contract_id: created.contract_id, user_party_id: party }, now(e)))
      expect(prepared.tx_hash).toMatch(/^[0-9a-f]{64}$/)
      // Another key's signature authorizes nothing.
      const stranger = newKeys()
      const forged = yield* Effect.either(
        finish.submitAcceptExternalPartySetupProposal(node, { party_id: party, transaction: prepared.transaction, signed_tx_hash: signHex(stranger, prepared.tx_hash), public_key: stranger.publicHex }, now(e))
      )
      expect(Either.isLeft(forged) && forged.left._tag).toBe("InvalidExternalSignature")
      const badSignature = yield* Effect.either(
        finish.submitAcceptExternalPartySetupProposal(node, { party_id: party, transaction: prepared.transaction, signed_tx_hash: signHex(keys, "00".repeat(32)), public_key: keys.publicHex }, now(e))
      )
      expect(Either.isLeft(badSignature) && badSignature.left._tag).toBe("InvalidExternalSignature")
      expect(node.dso.preapprovalOf(party, now(e))).toBeUndefined()

      const accepted = yield* settled(
        finish.submitAcceptExternalPartySetupProposal(node, { party_id: party, transaction: prepared.transaction, signed_tx_hash: signHex(keys, prepared.tx_hash), public_key: keys.publicHex }, now(e))
      )
      const preapproval = node.dso.preapprovalOf(party, now(e))
      expect(preapproval?.contract.created.contractId).toBe(accepted.transfer_preapproval_contract_id)
      expect(preapproval?.contract.created.templateId).toBe(TransferPreapproval.templateId)
      expect(finish.listExternalPartySetupProposals(node).contracts).toEqual([])

      // Alice sends to the external party through its preapproval.
      yield* op(e, wallet.transferPreapprovalSend("alice", { receiver_party_id: party, amount: "40", deduplication_id: "to-ext" }))
      const balance = Either.getOrThrow(finish.externalPartyBalance(node, party, now(e)))
      expect(balance).toMatchObject({ party_id: party, total_unlocked_coin: "40.0000000000", total_locked_coin: "0.0000000000", total_available_coin: "40.0000000000" })

      // The external party sends 15 back to alice, signing the prepared transfer.
      const alice = Either.getOrThrow(node.partyOf("alice"))
      yield* op(e, wallet.createTransferPreapproval("alice"))
      const send = Either.getOrThrow(
        finish.prepareTransferPreapprovalSend(
          node,
          { sender_party_id: party, receiver_party_id: alice, amount: 15, expires_at: toIso(now(e) + micros.minutes(10)), nonce: 0 },
          now(e)
        )
      )
      expect(send.transfer_command_contract_id_prefix).not.toBe("")
      const sent = yield* settled(
        finish.submitTransferPreapprovalSend(node, { party_id: party, transaction: send.transaction, signed_tx_hash: signHex(keys, send.tx_hash), public_key: keys.publicHex }, now(e))
      )
      const entry = node.participant.logic.updateById(sent.update_id)
      expect(entry?.update.kind === "transaction" && entry.update.externalTransactionHash).toBe(send.tx_hash)
      // The receiver's coin is the one the prepared transaction announced.
      expect(node.participant.logic.acs.get(send.transfer_command_contract_id_prefix)?.created.createArguments).toMatchObject({ owner: alice })
      expect(Either.getOrThrow(finish.externalPartyBalance(node, party, now(e))).total_unlocked_coin).toBe("25.0000000000")
      // The same nonce again is a duplicate; an expired preparation is refused.
      const duplicate = yield* Effect.either(
        finish.submitTransferPreapprovalSend(node, { party_id: party, transaction: send.transaction, signed_tx_hash: signHex(keys, send.tx_hash), public_key: keys.publicHex }, now(e))
      )
      expect(Either.isLeft(duplicate) && duplicate.left._tag).toBe("WalletCommandFailed")
      const late = Either.getOrThrow(
        finish.prepareTransferPreapprovalSend(node, { sender_party_id: party, receiver_party_id: alice, amount: "1", expires_at: toIso(now(e) + micros.seconds(5)), nonce: 1 }, now(e))
      )
      yield* e.advance(micros.seconds(10))
      const expired = yield* Effect.either(
        finish.submitTransferPreapprovalSend(node, { party_id: party, transaction: late.transaction, signed_tx_hash: signHex(keys, late.tx_hash), public_key: keys.publicHex }, now(e))
      )
      expect(Either.isLeft(expired) && expired.left._tag === "InvalidArgument" && expired.left.message).toMatch(/expired/)
      // An internal party has no external wallet.
      expect(Either.isLeft(finish.externalPartyBalance(node, alice, now(e)))).toBe(true)
    })
  )
})

