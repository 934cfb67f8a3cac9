/**
 * A participant's packages: the built-in ones (its template registry's) and the uploaded ones,
 * and which of them it vets on its synchronizers. Uploads and vetting are journaled
 * (PackagesUploaded, PackagesVetted), so that replaying the journal restores them.
 */
import { Either } from "effect"
import { invariant, type Micros } from "@sandnet/core"
import type { KnownPackage } from "./built-in-packages.ts"
import type { ParticipantEvent } from "./model.ts"
import type { ParticipantState } from "./state.ts"

/**
 * Takes an upload's packages (checked by the caller against this node's packages): journals the
 * ones it did not know, and, with `vet`, the start of vetting for those it did not vet yet.
 */
export const takeUpload = (
  node: ParticipantState,
  packages: ReadonlyArray<KnownPackage>,
  uploadedAt: Micros,
  vet: boolean
): void => {
  const fresh = packages.filter((p) => !node.packages.has(p.packageId))
  if (fresh.length > 0) {
    node.apply({ _tag: "PackagesUploaded", uploadedAt, packages: fresh.map((p) => ({ packageId: p.packageId, description: p.description })) })
  }
  if (!vet) return
  const unvetted = [...new Set(packages.map((p) => p.packageId))].filter((id) => !node.vetted.has(id))
  if (unvetted.length > 0) node.apply({ _tag: "PackagesVetted", packageIds: unvetted })
}

/** Folds PackagesUploaded and PackagesVetted into the participant's packages. */
export const applyPackages = (node: ParticipantState, event: Extract<ParticipantEvent, { _tag: "PackagesUploaded" | "PackagesVetted" }>): void => {
  if (event._tag === "PackagesUploaded") {
    const added = node.packages.addUploaded(event.packages, event.uploadedAt)
    invariant(Either.isRight(added), () => `uploaded packages do not fit: ${Either.isLeft(added) ? added.left : ""}`)
    node.packages = added.right
    return
  }
  const before = node.vetted.size
  for (const id of event.packageIds) node.vetted.add(id)
  if (node.vetted.size !== before) node.vettingSerial += 1
}
