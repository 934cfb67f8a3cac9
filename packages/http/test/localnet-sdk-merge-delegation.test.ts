/**
 * The Wallet SDK's documented 08-merge-delegation (docs/wallet-integration-guide/examples/scripts
 * of splice-wallet-kernel) against --localnet: it uploads LocalNet's
 * splice-util-token-standard-wallet-1.0.0.dar, one of Splice's own DARs, which Sandnet serves
 * natively (the upload is accepted without executing its Daml-LF); then the owner proposes a
 * MergeDelegation, the validator operator accepts it, and the operator's BatchMergeUtility merges
 * the owner's fifteen tapped holdings into one through the token standard's self-transfer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectSdk, ensureSdkEnvironment, damlLfDarNamed, type JsContractReader } from "./localnet-sdk-support.ts"
import { localNetToken, startLocalNet, type LocalNetNode } from "./localnet-support.ts"

/** The example's package id of splice-util-token-standard-wallet 1.0.0. */
const SPLICE_UTIL_TOKEN_STANDARD_WALLET_PACKAGE_ID = "1da198cb7968fa478cfa12aba9fdf128a63a8af6ab284ea6be238cf92a3733ac"

const TEMPLATE_PREFIX = "#splice-util-token-standard-wallet:Splice.Util.Token.Wallet.MergeDelegation"

describe("the Wallet SDK's 08-merge-delegation against --localnet", () => {
  let node: LocalNetNode
  beforeAll(async () => {
    ensureSdkEnvironment()
    node = await startLocalNet(7)
  })
  afterAll(() => node.close())

  const postDar = async (bytes: Uint8Array, path = "/v2/packages") =>
    fetch(`http://127.0.0.1:${node.ports.appUserLedger}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${await localNetToken()}`, "content-type": "application/octet-stream" },
      body: bytes
    })

  it("splice-util-token-standard-wallet's DAR validates and uploads (200); another Daml-LF DAR is still 501", async () => {
    expect((await postDar(damlLfDarNamed("splice-util-token-standard-wallet", "1.0.0"), "/v2/dars/validate")).status).toBe(200)
    const spliceReply = await postDar(damlLfDarNamed("splice-util-token-standard-wallet", "1.0.0"))
    expect(spliceReply.status).toBe(200)
    expect(await spliceReply.json()).toEqual({})
    expect((await postDar(damlLfDarNamed("my-token-wallet", "1.0.0"), "/v2/dars/validate")).status).toBe(501)
    const otherReply = await postDar(damlLfDarNamed("my-token-wallet", "1.0.0"))
    expect(otherReply.status).toBe(501)
    expect(await otherReply.json()).toMatchObject({ code: "UNSUPPORTED_OPERATION" })
  })

  it("08: delegated merge of fifteen taps of 20 into one holding of 300", async () => {
    const sdk = await connectSdk(node)
    await sdk.ledger.dar.upload(damlLfDarNamed("splice-util-token-standard-wallet", "1.0.0"), SPLICE_UTIL_TOKEN_STANDARD_WALLET_PACKAGE_ID)

    const aliceKeys = sdk.keys.generate()
    const alice = await sdk.party.external.create(aliceKeys.publicKey, { partyHint: "v1-08-alice" }).sign(aliceKeys.privateKey).execute()
    await Promise.all(
      Array.from({ length: 15 }).map(async () => {
        const [command, disclosed] = await sdk.amulet.tap(alice.partyId, "20")
        return sdk.ledger.prepare({ partyId: alice.partyId, commands: command, disclosedContracts: disclosed }).sign(aliceKeys.privateKey).execute({ partyId: alice.partyId })
      })
    )
    expect((await sdk.token.utxos.list({ partyId: alice.partyId })).length).toBe(15)

    await sdk.token.utxos.delegatedMerge.setup()
    const propose = sdk.token.utxos.delegatedMerge.command.propose({ owner: alice.partyId })
    await sdk.ledger.prepare({ partyId: alice.partyId, commands: propose }).sign(aliceKeys.privateKey).execute({ partyId: alice.partyId })
    await sdk.token.utxos.delegatedMerge.approve({ owner: alice.partyId })
    await sdk.token.utxos.delegatedMerge.execute({ party: alice.partyId })

    const reader = sdk.ledger.acsReader as unknown as JsContractReader
    const delegations = await reader.readJsContracts({ parties: [alice.partyId], templateIds: [`${TEMPLATE_PREFIX}:MergeDelegation`], filterByParty: true })
    expect(delegations.length).toBe(1)
    const operator = (delegations[0]!.createArgument as { operator: string }).operator
    expect(await reader.readJsContracts({ parties: [alice.partyId], templateIds: [`${TEMPLATE_PREFIX}:MergeDelegationProposal`], filterByParty: true })).toEqual([])
    // A merge call without a transfer is refused, as upstream's requires one.
    const emptyMerge = { templateId: `${TEMPLATE_PREFIX}:MergeDelegation`, contractId: delegations[0]!.contractId, choice: "MergeDelegation_Merge", choiceArgument: { optMergeTransfer: null } }
    await expect(sdk.ledger.internal.submit({ commands: [{ ExerciseCommand: emptyMerge }], actAs: [operator] })).rejects.toMatchObject({
      cause: expect.stringContaining("at least one of optMergeTransfer or optExtraTransfer must be provided")
    })

    const utxos = await sdk.token.utxos.list({ partyId: alice.partyId })
    expect(utxos.map((u) => [u.interfaceViewValue.instrumentId.id, u.interfaceViewValue.amount])).toEqual([["Amulet", "300.0000000000"]])
    expect(utxos.reduce((sum, u) => sum + Number(u.interfaceViewValue.amount), 0)).toBe(300)
  })
})
