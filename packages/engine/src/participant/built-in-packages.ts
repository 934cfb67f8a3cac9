/**
 * The packages every participant starts with: the built-in ones, its template registry's, all
 * vetted.
 */
import { Either } from "effect"
import type { PackageDescription } from "@sandnet/core"
import type { TemplateRegistry } from "../ledger/template.ts"
import * as Packages from "../packages/index.ts"

export interface KnownPackage {
  readonly packageId: string
  readonly description: PackageDescription
}

/** The built-in packages: every PackageDef of the template registry. */
export const builtInPackages = (registry: TemplateRegistry): ReadonlyArray<KnownPackage> =>
  registry.allPackages().map((pkg) => ({ packageId: pkg.id, description: pkg.description() }))

interface BuiltIns {
  readonly packages: Packages.PackageRegistry
  readonly vetted: ReadonlyArray<string>
}

/** A cache (pure, derived from the registry): every participant of a network starts from the same built-ins. */
const builtInsByRegistry = new WeakMap<TemplateRegistry, BuiltIns>()

/** The package registry and vetted ids a participant starts with: its built-in packages, all vetted. */
export const initialPackages = (registry: TemplateRegistry): BuiltIns => {
  let builtIns = builtInsByRegistry.get(registry)
  if (builtIns === undefined) {
    const known = builtInPackages(registry)
    const added = Packages.PackageRegistry.empty().addDescriptions(
      known.map((p) => p.description),
      0
    )
    const packages = Either.isRight(added) ? added.right.registry : Packages.PackageRegistry.empty()
    builtIns = { packages, vetted: [...new Set([...known.map((p) => p.packageId), ...packages.packageIds()])] }
    builtInsByRegistry.set(registry, builtIns)
  }
  return builtIns
}
