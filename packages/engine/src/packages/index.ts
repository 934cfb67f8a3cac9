/**
 * Packages and DARs: the Sandnet package payload (a PackageDescription in a Daml-LF Archive),
 * building and reading DARs, and the node's package registry with upgrade checks. Pure library
 * code. See docs/packages.md.
 */
export * from "./archive.ts"
export * from "./dar.ts"
export * from "./errors.ts"
export * from "./manifest.ts"
export * from "./payload.ts"
export * from "./registry.ts"
export * from "./splice-dars.ts"
export * from "./upgrade.ts"
