/**
 * Exercising a choice through an interface (as the token standard's clients do: the SDK names
 * TransferInstruction_Accept by `#splice-api-token-transfer-instruction-v1:...:TransferInstruction`):
 * the contract's own template runs the interface's choice, and the exercised node carries the
 * interface id; a contract whose template does not implement the interface is refused.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { micros, type ContractId, type ExercisedNode, type Json } from "@sandnet/core"
import {
  ALL_PACKAGES,
  CoinTransferInstruction,
  DsoView,
  LedgerApi,
  TemplateRegistry,
  TransferInstructionInterface,
  choiceContext,
  emptyMeta,
  type Command,
  type CoinTransferInstructionPayload
} from "../../src/index.ts"
import { makeEconomy, op, type Economy } from "../wallet/support.ts"

const byInterface = (templateId: string, contractId: ContractId, choice: string, e: Economy): Command => {
  const view = DsoView.of(e.network)
  return {
    _tag: "ExerciseCommand",
    templateId,
    contractId,
    choice,
    choiceArgument: { extraArgs: { context: choiceContext(view.coinRules()!.contract.created.contractId, view.latestOpenRound(e.clock.now)!.contract.created.contractId), meta: emptyMeta } }
  }
}

const offer = (e: Economy, trackingId: string) =>
  Effect.gen(function* () {
    const [w1, w2] = e.wallets
    const bob = yield* op(e, w2!.onboardUser({ name: `bob-${trackingId}` }))
    const created = yield* op(
      e,
      w1!.createTokenStandardTransfer("alice", { receiver_party_id: bob.party_id, amount: "10", description: "", expires_at: e.clock.now + micros.minutes(20), tracking_id: trackingId })
    )
    const cid = ("transfer_instruction_cid" in created.output ? created.output.transfer_instruction_cid : "") as ContractId
    return { bob: bob.party_id, cid }
  })

const disclosedFor = (e: Economy, instruction: ContractId) => {
  const view = DsoView.of(e.network)
  const contract = view.contract(instruction)!
  const locked = view.contract((contract.created.createArguments as unknown as CoinTransferInstructionPayload).lockedCoin)!
  return [view.coinRules()!.contract, view.latestOpenRound(e.clock.now)!.contract, locked]
}

describe("exercising a choice by interface id", () => {
  it.effect("runs the contract's implementation, in either reference form, and records the interface id", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy()
      yield* op(e, e.wallets[0]!.onboardUser({ name: "alice" }))
      yield* op(e, e.wallets[0]!.tap("alice", { amount: "500" }))
      const receiver = e.network.validators[1]!.participant
      for (const [i, templateId] of [TransferInstructionInterface.nameReference, TransferInstructionInterface.interfaceId()].entries()) {
        const { bob, cid } = yield* offer(e, `by-interface-${i}`)
        const choice = i === 0 ? "TransferInstruction_Accept" : "TransferInstruction_Reject"
        const { transaction } = yield* e.run(
          receiver.submit({ actAs: [bob], commandId: `accept-${i}`, commands: [byInterface(templateId, cid, choice, e)], disclosedContracts: disclosedFor(e, cid) })
        )
        const root = transaction.nodes[transaction.rootNodeIds[0]!] as ExercisedNode
        expect([root.kind, root.choice, root.templateId, root.interfaceId]).toEqual(["exercised", choice, CoinTransferInstruction.templateId, TransferInstructionInterface.interfaceId()])
        const output = (transaction.results[0] as { output: { tag: string } }).output.tag
        expect(output).toBe(i === 0 ? "TransferInstructionResult_Completed" : "TransferInstructionResult_Failed")
      }
    })
  )

  it.effect("refuses a contract whose template does not implement the interface, and a choice the interface lacks", () =>
    Effect.gen(function* () {
      const e = yield* makeEconomy()
      yield* op(e, e.wallets[0]!.onboardUser({ name: "alice" }))
      yield* op(e, e.wallets[0]!.tap("alice", { amount: "500" }))
      const { bob, cid } = yield* offer(e, "refused")
      const receiver = e.network.validators[1]!.participant
      const rules = DsoView.of(e.network).coinRules()!.contract
      const submit = (command: Command, commandId: string) =>
        Effect.either(e.run(receiver.submit({ actAs: [bob], commandId, commands: [command], disclosedContracts: disclosedFor(e, cid) })))
      const notImplemented = yield* submit(byInterface(TransferInstructionInterface.nameReference, rules.created.contractId, "TransferInstruction_Accept", e), "not-implemented")
      expect(Either.isLeft(notImplemented) && notImplemented.left).toMatchObject({
        _tag: "ContractDoesNotImplementInterface",
        contractId: rules.created.contractId,
        interfaceId: TransferInstructionInterface.interfaceId()
      })
      // The template's own choice is not the interface's.
      const ownChoice = yield* submit(byInterface(TransferInstructionInterface.nameReference, cid, "CoinTransferInstruction_Expire", e), "own-choice")
      expect(Either.isLeft(ownChoice) && ownChoice.left).toMatchObject({ _tag: "ChoiceNotFound", choice: "CoinTransferInstruction_Expire" })
    })
  )

  it("checks an interface exercise's choice and argument before interpretation", () => {
    const registry = new TemplateRegistry(ALL_PACKAGES)
    const command = (choice: string, choiceArgument: unknown): Command => ({
      _tag: "ExerciseCommand",
      templateId: TransferInstructionInterface.nameReference,
      contractId: "00ab" as ContractId,
      choice,
      choiceArgument: choiceArgument as Json
    })
    expect(Either.isRight(LedgerApi.checkCommands(registry, [command("TransferInstruction_Withdraw", { extraArgs: { context: { values: {} }, meta: emptyMeta } })], "commands"))).toBe(true)
    expect(LedgerApi.checkCommands(registry, [command("TransferInstruction_Withdraw", {})], "commands")).toMatchObject({ left: { _tag: "InvalidArgument", field: "commands[0].ExerciseCommand.choiceArgument" } })
    expect(LedgerApi.checkCommands(registry, [command("Nope", {})], "commands")).toMatchObject({ left: { _tag: "InvalidArgument", field: "commands[0].ExerciseCommand.choice" } })
    const unknown = { ...command("TransferInstruction_Withdraw", {}), templateId: "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:Nope" }
    expect(LedgerApi.checkCommands(registry, [unknown], "commands")).toMatchObject({ left: { _tag: "TemplatesOrInterfacesNotFound" } })
  })
})
