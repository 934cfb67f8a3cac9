import type { ChoiceDescription, PackageDescription } from "@sandnet/core"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { buildDar, packageIdOfDescription, readDar, validatePackageDescription } from "../../src/packages/index.ts"

const identifier = fc.stringMatching(/^[A-Z][A-Za-z0-9_]{0,11}$/)
const uniqueBy = <T>(arb: fc.Arbitrary<T>, key: (t: T) => string, maxLength: number) => fc.uniqueArray(arb, { selector: key, maxLength })

const choice: fc.Arbitrary<ChoiceDescription> = fc.record({ name: identifier, consuming: fc.boolean() })
const choices = uniqueBy(choice, (c) => c.name, 4)
const template = fc.record({
  name: identifier,
  choices,
  implements: fc.uniqueArray(fc.stringMatching(/^[A-Z][a-z]{0,6}\.[A-Z][a-z]{0,6}:[A-Z][a-z]{0,6}$/), { maxLength: 2 })
})
const iface = fc.record({ name: identifier, choices })
const module = fc
  .record({
    name: fc.array(identifier, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(".")),
    templates: uniqueBy(template, (t) => t.name, 3),
    interfaces: uniqueBy(iface, (i) => i.name, 2)
  })
  .filter((m) => new Set([...m.templates.map((t) => t.name), ...m.interfaces.map((i) => i.name)]).size === m.templates.length + m.interfaces.length)

export const packageDescription: fc.Arbitrary<PackageDescription> = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/),
  version: fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 3 }).map((parts) => parts.join(".")),
  modules: uniqueBy(module, (m) => m.name, 3)
})

describe("package properties", () => {
  it("generated descriptions are valid", () => {
    fc.assert(fc.property(packageDescription, (d) => Either.isRight(validatePackageDescription(d))))
  })

  it("buildDar -> readDar round-trips any valid description", () => {
    fc.assert(
      fc.property(fc.uniqueArray(packageDescription, { minLength: 1, maxLength: 3, selector: (d) => `${d.name}@${d.version}` }), fc.nat(), (packages, pick) => {
        fc.pre(new Set(packages.map(packageIdOfDescription)).size === packages.length)
        const mainIndex = pick % packages.length
        const dar = Either.getOrThrow(readDar(buildDar({ name: "dar", version: "1.0.0", packages, mainIndex })))
        expect(dar.main.description).toEqual(packages[mainIndex])
        expect([...dar.archives.map((a) => a.description)].sort((a, b) => (a.name + a.version < b.name + b.version ? -1 : 1))).toEqual(
          [...packages].sort((a, b) => (a.name + a.version < b.name + b.version ? -1 : 1))
        )
        for (const archive of dar.archives) expect(archive.packageId).toBe(packageIdOfDescription(archive.description))
      }),
      { numRuns: 80 }
    )
  })

  it("package ids are stable and depend on the content", () => {
    fc.assert(
      fc.property(packageDescription, packageDescription, (a, b) => {
        const copy: PackageDescription = JSON.parse(JSON.stringify(a))
        expect(packageIdOfDescription(copy)).toBe(packageIdOfDescription(a))
        if (JSON.stringify(a) !== JSON.stringify(b)) expect(packageIdOfDescription(a)).not.toBe(packageIdOfDescription(b))
      })
    )
  })
})
