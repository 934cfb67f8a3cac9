import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { encodeArchive, MANIFEST_PATH, packageIdOf, readDar, recognizeSpliceDar, type DamlLfNotExecuted } from "../../src/packages/index.ts"
import { manifest, util, zip } from "./fixtures.ts"

// ArchivePayload { minor = "1" (3), daml_lf_2 = <a Package> (4) }: a Daml-LF 2.1 package.
const DAML_LF_PAYLOAD = Uint8Array.of(0x1a, 0x01, 0x31, 0x22, 0x02, 0x08, 0x01)
const packageId = packageIdOf(DAML_LF_PAYLOAD)

const damlLfDar = (mainFile: string, name?: string) => {
  const path = `dar/${mainFile}`
  const attributes: Array<readonly [string, string]> = [["Manifest-Version", "1.0"], ["Main-Dalf", path], ["Dalfs", path], ["Format", "daml-lf"]]
  if (name !== undefined) attributes.push(["Name", name])
  return zip({ [MANIFEST_PATH]: manifest(attributes), [path]: encodeArchive({ hashFunction: 0, payload: DAML_LF_PAYLOAD, hash: packageId }) })
}

const refusalOf = (bytes: Uint8Array): DamlLfNotExecuted => {
  const result = readDar(bytes)
  if (Either.isRight(result) || result.left._tag !== "DamlLfNotExecuted") throw new Error("expected DamlLfNotExecuted")
  return result.left
}

const describeNative = (name: string, version: string) => (name === "splice-util-token-standard-wallet" && version === "1.0.0" ? util : undefined)

describe("recognizeSpliceDar", () => {
  it("recognizes splice-util-token-standard-wallet 1.0.0 by its main archive's file name or the manifest's Name, as the native package", () => {
    for (const bytes of [
      damlLfDar(`splice-util-token-standard-wallet-1.0.0-${packageId}.dalf`),
      damlLfDar(`main.dalf`, "splice-util-token-standard-wallet")
    ]) {
      const recognized = recognizeSpliceDar(bytes, refusalOf(bytes), describeNative)
      expect(recognized?.spliceDar.name).toBe("splice-util-token-standard-wallet")
      expect(recognized?.dar.main).toMatchObject({ packageId, description: util })
    }
  })

  it("recognizes splice-util-featured-app-proxies 1.1.0 (13-rewards-for-deposits) by its main archive's file name or the manifest's Name", () => {
    const describeProxies = (name: string, version: string) => (name === "splice-util-featured-app-proxies" && version === "1.1.0" ? util : undefined)
    for (const bytes of [
      damlLfDar(`splice-util-featured-app-proxies-1.1.0-${packageId}.dalf`),
      damlLfDar(`main.dalf`, "splice-util-featured-app-proxies")
    ]) {
      expect(recognizeSpliceDar(bytes, refusalOf(bytes), describeProxies)?.spliceDar).toMatchObject({ name: "splice-util-featured-app-proxies", version: "1.1.0" })
    }
    const otherVersion = damlLfDar(`splice-util-featured-app-proxies-1.0.0-${packageId}.dalf`)
    expect(recognizeSpliceDar(otherVersion, refusalOf(otherVersion), describeProxies)).toBeUndefined()
  })

  it("leaves any other Daml-LF DAR refused, and a known name Sandnet has no package for", () => {
    const other = damlLfDar(`my-wallet-1.0.0-${packageId}.dalf`, "my-wallet")
    expect(recognizeSpliceDar(other, refusalOf(other), describeNative)).toBeUndefined()
    const otherVersion = damlLfDar(`splice-util-token-standard-wallet-2.0.0-${packageId}.dalf`)
    expect(recognizeSpliceDar(otherVersion, refusalOf(otherVersion), describeNative)).toBeUndefined()
    const known = damlLfDar(`splice-util-token-standard-wallet-1.0.0-${packageId}.dalf`)
    expect(recognizeSpliceDar(known, refusalOf(known), () => undefined)).toBeUndefined()
  })
})
