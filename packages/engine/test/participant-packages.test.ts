/**
 * Uploaded packages, vetting and external parties' signing keys are participant state: every
 * participant of the network journals them (PackagesUploaded, PackagesVetted, PartyHosted) and a
 * participant rebuilt from its journal has them back, with the same vetting serial.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { generateKeyPairSync } from "node:crypto"
import type { PackageDescription } from "@sandnet/core"
import { External, LedgerApi, Packages, ParticipantLogic, Topology } from "../src/index.ts"
import { makeHarness } from "./support.ts"

const app = (name: string): PackageDescription => ({
  name,
  version: "1.0.0",
  modules: [{ name: "Kept.Main", templates: [{ name: "Thing", choices: [], implements: [] }], interfaces: [] }]
})
const dar = (d: PackageDescription) => Packages.buildDar({ name: d.name, version: d.version, packages: [d] })
const none: LedgerApi.VettedPackagesQuery = { packageIds: [], packageNamePrefixes: [], participantIds: [], synchronizerIds: [] }

const publicKey = (): External.Ed25519PublicKey => {
  const spki = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" })
  return Either.getOrThrow(External.ed25519PublicKeyFromSpki(new Uint8Array(spki)))
}

describe("packages, vetting and external keys as participant state", () => {
  it.effect("every participant journals them; rebuilt from its journal, a participant has them back", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ superValidators: 1, validators: 2 })
      const topology = yield* h.run(Topology)
      const vetted = app("kept-vetted")
      const unvetted = app("kept-unvetted")
      expect(Either.isRight(LedgerApi.uploadDar(h.network, dar(vetted), h.clock.now, { vet: true }))).toBe(true)
      expect(Either.isRight(LedgerApi.uploadDar(h.network, dar(unvetted), h.clock.now, { vet: false }))).toBe(true)
      // vetting a known package later is its own journal event (and a new serial)
      expect(Either.isRight(LedgerApi.uploadDar(h.network, dar(unvetted), h.clock.now, { vet: true }))).toBe(true)
      const key = publicKey()
      const host = h.network.validators[1]!.participant.logic
      const party = {
        partyId: `ext::${key.fingerprint}`,
        hosting: { threshold: 1, participants: [{ participantUid: host.uid, permission: "Confirmation" }] },
        signingKeys: { threshold: 1, keys: [key] }
      } as unknown as External.VerifiedExternalParty
      expect(Either.isRight(LedgerApi.hostExternalParty(h.network, topology, party, h.clock.now))).toBe(true)

      const serial = LedgerApi.listVettedPackages(h.network, topology, none)[0]!.topologySerial
      expect(serial).toBe(3)
      for (const node of h.network.participants) {
        const logic = node.logic
        expect(logic.journal.events().filter((e) => e._tag === "PackagesUploaded" || e._tag === "PackagesVetted" || e._tag === "PartyHosted").map((e) => e._tag)).toEqual([
          "PackagesUploaded",
          "PackagesVetted",
          "PackagesUploaded",
          "PackagesVetted",
          "PartyHosted"
        ])
        expect(logic.signingKeysOf(party.partyId)).toEqual({ threshold: 1, keys: [key] })
        const rebuilt = ParticipantLogic.recover(logic, h.clock.now).logic
        expect(rebuilt.packages.packageIds()).toEqual(logic.packages.packageIds())
        expect(rebuilt.packages.get(Packages.packageIdOfDescription(vetted))?.archive).toEqual(Packages.encodeDalf(vetted).archive)
        expect([...rebuilt.vetted].sort()).toEqual([...logic.vetted].sort())
        expect(rebuilt.vetted.has(Packages.packageIdOfDescription(unvetted))).toBe(true)
        expect(rebuilt.vettingSerial).toBe(serial)
        expect(rebuilt.signingKeysOf(party.partyId)).toEqual({ threshold: 1, keys: [key] })
      }
      // only the hosting participant committed the party's topology update
      expect(host.hosts(party.partyId)).toBe(true)
      expect(h.network.validators[0]!.participant.logic.hosts(party.partyId)).toBe(false)
    })
  )
})
