/**
 * The Wallet SDK's flows that need the user's own DARs (04-token-standard-allocation uploads a DAR
 * with `sdk.ledger.dar.upload`, then uses its templates; 08's and 13's DARs are Splice's own and
 * served natively, see localnet-sdk-merge-delegation and localnet-sdk-featured-app-proxy) against --localnet: Sandnet does not execute Daml-LF, and says so. Uploading a
 * Daml-LF DAR is 501 UNSUPPORTED_OPERATION, a malformed DAR 400 DAR_PARSE_ERROR, and a command on
 * a template of a package the node does not have names the missing package.
 */
import { Packages } from "@sandnet/engine"
import { zipSync } from "fflate"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectSdk, ensureSdkEnvironment } from "./localnet-sdk-support.ts"
import { localNetToken, requestWithHost, startLocalNet, type LocalNetNode } from "./localnet-support.ts"

/** A DAR of one archive with this payload (as `daml build` lays it out). */
const darOf = (payload: Uint8Array) => {
  const packageId = Packages.packageIdOf(payload)
  const path = `trading-app-1.0.0-${packageId}/trading-app-1.0.0-${packageId}.dalf`
  const manifest = Packages.writeManifest([
    ["Manifest-Version", "1.0"],
    ["Main-Dalf", path],
    ["Dalfs", path],
    ["Format", "daml-lf"]
  ])
  const archive = Packages.encodeArchive({ hashFunction: 0, payload, hash: packageId })
  return { packageId, bytes: Buffer.from(zipSync({ [Packages.MANIFEST_PATH]: manifest, [path]: archive })) }
}

// ArchivePayload { minor = "1" (3), daml_lf_2 = <a Package> (4) }: a Daml-LF 2.1 package.
const damlLfDar = darOf(Uint8Array.of(0x1a, 0x01, 0x31, 0x22, 0x02, 0x08, 0x01))
const garbageDar = darOf(Buffer.from("not a package payload"))

describe("the Wallet SDK's flows that need the user's own DARs, against --localnet", () => {
  let node: LocalNetNode
  beforeAll(async () => {
    ensureSdkEnvironment()
    node = await startLocalNet(4)
  })
  afterAll(() => node.close())

  it("04: uploading a Daml-LF DAR fails with UNSUPPORTED_OPERATION: Sandnet does not execute Daml-LF", async () => {
    const sdk = await connectSdk(node)
    await expect(sdk.ledger.dar.upload(damlLfDar.bytes, damlLfDar.packageId)).rejects.toMatchObject({
      code: "UNSUPPORTED_OPERATION",
      errorCategory: 14,
      cause: expect.stringMatching(new RegExp(`^Sandnet does not execute Daml-LF: .*\\(${damlLfDar.packageId}\\) is a Daml-LF 2\\.1 package`))
    })
    expect(await sdk.ledger.dar.check(damlLfDar.packageId)).toBe(false)
    const reply = await fetch(`http://127.0.0.1:${node.ports.appUserLedger}/v2/packages`, {
      method: "POST",
      headers: { authorization: `Bearer ${await localNetToken()}`, "content-type": "application/octet-stream" },
      body: damlLfDar.bytes
    })
    expect(reply.status).toBe(501)
  })

  it("a malformed DAR fails with DAR_PARSE_ERROR (400)", async () => {
    const sdk = await connectSdk(node)
    await expect(sdk.ledger.dar.upload(garbageDar.bytes, garbageDar.packageId)).rejects.toMatchObject({ code: "DAR_PARSE_ERROR", errorCategory: 8 })
    const reply = await fetch(`http://127.0.0.1:${node.ports.appUserLedger}/v2/packages`, {
      method: "POST",
      headers: { authorization: `Bearer ${await localNetToken()}`, "content-type": "application/octet-stream" },
      body: garbageDar.bytes
    })
    expect(reply.status).toBe(400)
  })

  it("04: a command on a template of the DAR that could not be uploaded is 404 TEMPLATES_OR_INTERFACES_NOT_FOUND saying Sandnet does not execute Daml-LF", async () => {
    const sdk = await connectSdk(node)
    const alice = await sdk.party.internal.allocate({ partyHint: "v1-04-alice" })
    const proposal = {
      CreateCommand: {
        templateId: "#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTradeProposal",
        createArguments: { venue: alice, tradeCid: null, transferLegs: {}, approvers: [alice] }
      }
    }
    await expect(sdk.ledger.internal.submit({ commands: [proposal], actAs: [alice] })).rejects.toMatchObject({
      code: "TEMPLATES_OR_INTERFACES_NOT_FOUND",
      errorCategory: 11,
      cause: expect.stringMatching(/^Templates or interfaces do not exist: #splice-token-test-trading-app:Splice\.Testing\.Apps\.TradingApp:OTCTradeProposal\. Sandnet .* does not execute Daml-LF/)
    })
  })

  it("04: the token standard's allocation APIs are served, through the scan proxy and on the registry's port: 404 for an id that is no allocation, 400 for a factory request without the allocation", async () => {
    const contractId = `00${"ab".repeat(32)}`
    const calls = [
      ["/registry/allocation-instruction/v1/allocation-factory", { choiceArguments: {} }, 400],
      [`/registry/allocations/v1/${contractId}/choice-contexts/execute-transfer`, {}, 404],
      [`/registry/allocations/v1/${contractId}/choice-contexts/withdraw`, {}, 404],
      [`/registry/allocations/v1/${contractId}/choice-contexts/cancel`, {}, 404]
    ] as const
    const token = await localNetToken()
    for (const [path, body, status] of calls) {
      const proxied = await requestWithHost(node.ports.validator, "localhost", `/api/validator/v0/scan-proxy${path}`, { token, body })
      const direct = await requestWithHost(node.ports.registry, "localhost", path, { body })
      for (const reply of [proxied, direct]) {
        expect(reply.status).toBe(status)
        expect(reply.json).toMatchObject({ error: expect.any(String) })
        if (status === 404) expect(JSON.stringify(reply.json)).toContain(`allocation ${contractId} not found`)
      }
    }
  })

})
