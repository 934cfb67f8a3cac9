import type { PackageDescription } from "@sandnet/core"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  buildDar,
  KnownPackageVersion,
  packageErrorBody,
  packageIdOfDescription,
  PackageRegistry,
  PackageUpgradeInvalid,
  type PackageUploadError
} from "../../src/packages/index.ts"
import { coin, util } from "./fixtures.ts"

const dar = (...packages: ReadonlyArray<PackageDescription>) =>
  buildDar({ name: packages[0]!.name, version: packages[0]!.version, packages })

const upload = (registry: PackageRegistry, bytes: Uint8Array, at = 1_000) => {
  const result = registry.uploadDar(bytes, at)
  if (Either.isLeft(result)) throw new Error(`unexpected: ${result.left.message}`)
  return result.right
}

const rejection = (result: Either.Either<unknown, PackageUploadError>): PackageUploadError => {
  if (Either.isRight(result)) throw new Error("expected a rejection")
  return result.left
}

const withoutChoice = (description: PackageDescription, template: string, choice: string): PackageDescription => ({
  ...description,
  modules: description.modules.map((m) => ({
    ...m,
    templates: m.templates.map((t) => (t.name === template ? { ...t, choices: t.choices.filter((c) => c.name !== choice) } : t))
  }))
})

describe("package registry", () => {
  it("uploads a DAR and lists its package ids", () => {
    const { registry, added, mainPackageId, packages } = upload(PackageRegistry.empty(), dar(coin("0.1.0"), util), 42)
    expect(mainPackageId).toBe(packageIdOfDescription(coin("0.1.0")))
    expect(added).toEqual([packageIdOfDescription(coin("0.1.0")), packageIdOfDescription(util)])
    expect(packages.every((p) => p.isNew)).toBe(true)
    expect(registry.packageIds()).toEqual([...added].sort())
    expect(registry.get(mainPackageId)).toMatchObject({ name: "sandnet-coin", version: "0.1.0", uploadedAt: 42, description: coin("0.1.0") })
  })

  it("validateDar persists nothing", () => {
    const registry = PackageRegistry.empty()
    const check = Either.getOrThrow(registry.validateDar(dar(coin("0.1.0"))))
    expect(check.packages).toHaveLength(1)
    expect(registry.size).toBe(0)
  })

  it("re-uploading identical packages is idempotent", () => {
    const first = upload(PackageRegistry.empty(), dar(coin("0.1.0")), 1)
    const second = upload(first.registry, dar(coin("0.1.0")), 2)
    expect(second.added).toEqual([])
    expect(second.packages[0]!.isNew).toBe(false)
    expect(second.registry).toBe(first.registry)
    expect(second.registry.get(second.mainPackageId)!.uploadedAt).toBe(1)
  })

  it("rejects a different package with a known name and version", () => {
    const { registry } = upload(PackageRegistry.empty(), dar(coin("0.1.0")))
    const other = coin("0.1.0", { modules: [...coin("0.1.0").modules, { name: "Sandnet.Extra", templates: [], interfaces: [] }] })
    const error = rejection(registry.uploadDar(dar(other), 2))
    expect(error).toBeInstanceOf(KnownPackageVersion)
    expect(error).toMatchObject({
      code: "KNOWN_DAR_VERSION",
      packageId: packageIdOfDescription(other),
      existingPackageId: packageIdOfDescription(coin("0.1.0"))
    })
    expect(packageErrorBody(error)).toMatchObject({ code: "KNOWN_DAR_VERSION", errorCategory: 8, grpcCodeValue: 3 })
  })

  it("accepts a compatible upgrade (additions only)", () => {
    const { registry } = upload(PackageRegistry.empty(), dar(coin("0.1.0")))
    const next = coin("0.2.0", {
      modules: [
        {
          ...coin("0.2.0").modules[0]!,
          templates: [
            ...coin("0.2.0").modules[0]!.templates.map((t) => ({ ...t, choices: [...t.choices, { name: "Archive2", consuming: true }] })),
            { name: "NewTemplate", choices: [], implements: [] }
          ]
        },
        { name: "Sandnet.Extra", templates: [], interfaces: [] }
      ]
    })
    const uploaded = upload(registry, dar(next))
    expect(uploaded.registry.versionsOf("sandnet-coin").map((p) => p.version)).toEqual(["0.1.0", "0.2.0"])
  })

  it("rejects an upgrade that drops a template, naming it", () => {
    const { registry } = upload(PackageRegistry.empty(), dar(coin("0.1.0")))
    const next = coin("0.2.0", {
      modules: [{ ...coin("0.2.0").modules[0]!, templates: coin("0.2.0").modules[0]!.templates.filter((t) => t.name !== "TransferPreapproval") }]
    })
    const error = rejection(registry.uploadDar(dar(next), 2))
    expect(error).toBeInstanceOf(PackageUpgradeInvalid)
    expect(error).toMatchObject({ code: "DAR_NOT_VALID_UPGRADE", oldVersion: "0.1.0", newVersion: "0.2.0" })
    expect(error.message).toMatch(/new package sandnet-coin-0\.2\.0 .* cannot be an upgrade of existing package sandnet-coin-0\.1\.0 .*template Sandnet\.Coin:TransferPreapproval is missing/)
  })

  it("rejects an upgrade that drops a choice or changes its consuming flag", () => {
    const { registry } = upload(PackageRegistry.empty(), dar(coin("0.1.0")))
    const dropped = rejection(registry.uploadDar(dar(withoutChoice(coin("0.2.0"), "Holding", "Split")), 2))
    expect(dropped).toMatchObject({ _tag: "PackageUpgradeInvalid", problems: [{ kind: "missingChoice", module: "Sandnet.Coin", entity: "Holding", detail: "Split" }] })
    expect(dropped.message).toMatch(/choice Sandnet\.Coin:Holding\.Split is missing/)
    const flipped = coin("0.2.0", {
      modules: [
        {
          ...coin("0.2.0").modules[0]!,
          templates: coin("0.2.0").modules[0]!.templates.map((t) =>
            t.name === "Holding" ? { ...t, choices: t.choices.map((c) => (c.name === "Fetch" ? { ...c, consuming: true } : c)) } : t
          )
        }
      ]
    })
    expect(rejection(registry.uploadDar(dar(flipped), 2)).message).toMatch(/Holding\.Fetch changed from non-consuming to consuming/)
    const noInterface = coin("0.2.0", {
      modules: [
        {
          ...coin("0.2.0").modules[0]!,
          templates: coin("0.2.0").modules[0]!.templates.map((t) => ({ ...t, implements: [] })),
          interfaces: []
        }
      ]
    })
    expect(rejection(registry.uploadDar(dar(noInterface), 2))).toMatchObject({
      problems: [
        { kind: "missingImplementation", detail: "Splice.Api.Token.HoldingV1:Holding" },
        { kind: "missingInterface", entity: "Locked" }
      ]
    })
  })

  it("checks a lower version against the closest higher one (Canton checks both directions)", () => {
    const { registry } = upload(PackageRegistry.empty(), dar(coin("0.2.0")))
    // 0.1.0 has fewer choices than 0.2.0: 0.2.0 is a valid upgrade of it, so it is accepted.
    expect(Either.isRight(registry.uploadDar(dar(withoutChoice(coin("0.1.0"), "Holding", "Split")), 2))).toBe(true)
    // 0.1.0 with a template that 0.2.0 lacks: 0.2.0 would not upgrade it.
    const extra = coin("0.1.0", {
      modules: [{ ...coin("0.1.0").modules[0]!, templates: [...coin("0.1.0").modules[0]!.templates, { name: "Gone", choices: [], implements: [] }] }]
    })
    const error = rejection(registry.uploadDar(dar(extra), 2))
    expect(error).toMatchObject({ _tag: "PackageUpgradeInvalid", oldVersion: "0.1.0", newVersion: "0.2.0" })
    expect(error.message).toMatch(/existing package sandnet-coin-0\.2\.0 .* cannot be an upgrade of new package sandnet-coin-0\.1\.0 .*template Sandnet\.Coin:Gone is missing/)
  })

  it("compares against the closest versions only and against the vetted set when given", () => {
    const base = upload(PackageRegistry.empty(), dar(coin("0.1.0"))).registry
    const v2 = withoutChoice(coin("0.2.0"), "Holding", "Split")
    // Against everything known, 0.2.0 drops Split of 0.1.0.
    expect(Either.isLeft(base.validateDar(dar(v2)))).toBe(true)
    // On a synchronizer where 0.1.0 is not vetted there is nothing to compare with.
    expect(Either.isRight(base.validateDar(dar(v2), { vettedOnSynchronizer: [] }))).toBe(true)
    expect(Either.isLeft(base.validateDar(dar(v2), { vettedOnSynchronizer: [packageIdOfDescription(coin("0.1.0"))] }))).toBe(true)
  })

  it("checks packages of one DAR against each other", () => {
    const error = rejection(
      PackageRegistry.empty().validateDar(
        buildDar({ name: "both", version: "1", packages: [coin("0.1.0"), withoutChoice(coin("0.2.0"), "Holding", "Transfer")] })
      )
    )
    expect(error).toMatchObject({ _tag: "PackageUpgradeInvalid", problems: [{ detail: "Transfer" }] })
  })

  it("seeds built-in descriptions with the same checks", () => {
    const seeded = Either.getOrThrow(PackageRegistry.empty().addDescriptions([coin("0.1.0"), util], 0))
    expect(seeded.registry.packageIds()).toEqual([packageIdOfDescription(coin("0.1.0")), packageIdOfDescription(util)].sort())
    const again = upload(seeded.registry, dar(coin("0.1.0")))
    expect(again.added).toEqual([])
  })

  it("propagates DAR read errors", () => {
    expect(rejection(PackageRegistry.empty().validateDar(new Uint8Array(5)))).toMatchObject({ _tag: "DarNotAZip", code: "INVALID_DAR" })
  })
})
