import type { PackageDescription } from "@sandnet/core"
import { zipSync } from "fflate"
import { writeManifest } from "../../src/packages/index.ts"

export const coin = (version: string, extra: Partial<PackageDescription> = {}): PackageDescription => ({
  name: "sandnet-coin",
  version,
  modules: [
    {
      name: "Sandnet.Coin",
      templates: [
        {
          name: "Holding",
          choices: [
            { name: "Transfer", consuming: true },
            { name: "Split", consuming: true },
            { name: "Fetch", consuming: false }
          ],
          implements: ["Splice.Api.Token.HoldingV1:Holding"]
        },
        { name: "TransferPreapproval", choices: [{ name: "Send", consuming: false }], implements: [] }
      ],
      interfaces: [{ name: "Locked", choices: [{ name: "Unlock", consuming: true }] }]
    }
  ],
  ...extra
})

export const util: PackageDescription = {
  name: "sandnet-util",
  version: "1.0.0",
  modules: [{ name: "Sandnet.Util", templates: [{ name: "Marker", choices: [], implements: [] }], interfaces: [] }]
}

/** A zip with the given entries, for hand-made (broken) DARs. */
export const zip = (entries: Readonly<Record<string, Uint8Array>>): Uint8Array => zipSync({ ...entries })

export const manifest = (attributes: ReadonlyArray<readonly [string, string]>): Uint8Array => writeManifest(attributes)

export const standardManifest = (main: string, dalfs: ReadonlyArray<string>): Uint8Array =>
  manifest([
    ["Manifest-Version", "1.0"],
    ["Main-Dalf", main],
    ["Dalfs", dalfs.join(", ")],
    ["Format", "daml-lf"]
  ])
