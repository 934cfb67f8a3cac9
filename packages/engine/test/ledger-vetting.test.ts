/**
 * Package vetting and preferred packages of the ledger API: every participant vets every vetted
 * package on every synchronizer; the preferred package of a name is its highest vetted version.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { uidWithoutPrefix, type PackageDescription } from "@sandnet/core"
import { LedgerApi, Packages, Topology } from "../src/index.ts"
import { makeHarness } from "./support.ts"

const app = (version: string, templates: ReadonlyArray<string>): PackageDescription => ({
  name: "vet-app",
  version,
  modules: [{ name: "VetApp.Main", templates: templates.map((name) => ({ name, choices: [], implements: [] })), interfaces: [] }]
})
const v1 = app("1.0.0", ["Thing"])
const v2 = app("2.0.0", ["Thing", "Other"])
const dar = (d: PackageDescription) => Packages.buildDar({ name: d.name, version: d.version, packages: [d] })
const none: LedgerApi.VettedPackagesQuery = { packageIds: [], packageNamePrefixes: [], participantIds: [], synchronizerIds: [] }

describe("package vetting", () => {
  it.effect("lists each participant on each synchronizer, sorted; vetting uploads bump the serial; filters by name prefix and id", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const topology = yield* h.run(Topology)
      const before = LedgerApi.listVettedPackages(h.network, topology, none)
      const expectedKeys = topology
        .synchronizers()
        .map((s) => s.synchronizerId as string)
        .sort()
        .flatMap((s) => topology.participants().map((p) => uidWithoutPrefix(p.uid)).sort().map((p) => `${s} ${p}`))
      expect(before.map((e) => `${e.synchronizerId} ${e.participantId}`)).toEqual(expectedKeys)
      expect(before.every((e) => e.topologySerial === 1)).toBe(true)

      expect(Either.isRight(LedgerApi.uploadDar(h.network, dar(v1), h.clock.now, { vet: true }))).toBe(true)
      expect(Either.isRight(LedgerApi.uploadDar(h.network, dar(v2), h.clock.now, { vet: false }))).toBe(true)
      // An idempotent re-upload vets nothing new: the serial stays.
      expect(Either.isRight(LedgerApi.uploadDar(h.network, dar(v1), h.clock.now, { vet: true }))).toBe(true)
      const byName = LedgerApi.listVettedPackages(h.network, topology, { ...none, packageNamePrefixes: ["vet"] })
      expect(byName.map((e) => e.topologySerial)).toEqual(before.map(() => 2))
      expect(byName[0]?.packages.map((p) => p.packageId)).toEqual([Packages.packageIdOfDescription(v1)])
      expect(LedgerApi.listVettedPackages(h.network, topology, { ...none, packageIds: [Packages.packageIdOfDescription(v2)] })).toEqual([])
      const first = before[0]!
      expect(
        LedgerApi.listVettedPackages(h.network, topology, { ...none, participantIds: [first.participantId], synchronizerIds: [first.synchronizerId] })
      ).toHaveLength(1)
    })
  )

  it.effect("preferred packages: highest vetted version; unknown names and unhosted parties fail", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 1 })
      const topology = yield* h.run(Topology)
      const alice = yield* h.run(h.network.validators[0]!.participant.allocateParty("alice"))
      LedgerApi.uploadDar(h.network, dar(v1), h.clock.now, { vet: true })
      LedgerApi.uploadDar(h.network, dar(v2), h.clock.now, { vet: false })
      const ask = (parties: ReadonlyArray<string>, name = "vet-app") =>
        LedgerApi.preferredPackages(h.network, topology, [{ packageName: name, parties }], undefined)
      const first = Either.getOrThrow(ask([alice]))
      expect(first.packages.map((p) => p.description.version)).toEqual(["1.0.0"])
      expect(first.synchronizerId).toBe(topology.synchronizers().map((s) => s.synchronizerId).sort()[0])
      LedgerApi.uploadDar(h.network, dar(v2), h.clock.now, { vet: true })
      // v2 was known but not vetted: uploading it again with vetting vets it.
      expect(Either.getOrThrow(ask([alice])).packages.map((p) => p.description.version)).toEqual(["2.0.0"])
      expect(Either.getLeft(ask([alice], "nope")).pipe((o) => o._tag === "Some" && o.value._tag)).toBe("PackageNamesNotFound")
      expect(Either.getLeft(ask([`stranger::1220${"b".repeat(64)}`])).pipe((o) => o._tag === "Some" && o.value._tag)).toBe("PackageSelectionFailed")
    })
  )
})
