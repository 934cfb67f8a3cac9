/**
 * Checks JSON bodies against upstream's own response types: the openapi-typescript declarations that
 * `@canton-network/core-splice-client` generates from Splice's scan, scan-proxy and validator
 * (internal) OpenAPI documents (dist/generated-clients/scan.d.ts, scan-proxy.d.ts, validator-internal.d.ts). Each body becomes a `const` annotated with its
 * response type in a TypeScript file, which the compiler API type-checks; the diagnostics, named by
 * the sample they fall in, are the mismatches.
 */
import ts from "typescript"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

/** Where the package's generated clients are (its exports map names only its entry point). */
export const generatedClients = join(dirname(createRequire(import.meta.url).resolve("@canton-network/core-splice-client")), "generated-clients")

/** One body and the upstream type it must have, e.g. `Scan["/v0/dso"]["get"]` with status 200. */
export interface Sample {
  readonly name: string
  readonly document: "Scan" | "ScanProxy" | "ValidatorInternal"
  readonly path: string
  readonly method: "get" | "post"
  readonly body: unknown
}

/**
 * openapi-typescript writes a free-form object (`type: object` without properties, e.g. a contract's
 * payload) as `Record<string, never>`, which no non-empty object fits; OpenAPI means "any object", so
 * those become `{[key]: unknown}`. Everything else (required fields, enums, number vs string, extra
 * fields by the excess-property check) is upstream's type unchanged.
 */
const PRELUDE = (dir: string) => `import type { paths as Scan } from ${JSON.stringify(join(dir, "scan.js"))}
import type { paths as ScanProxy } from ${JSON.stringify(join(dir, "scan-proxy.js"))}
import type { paths as ValidatorInternal } from ${JSON.stringify(join(dir, "validator-internal.js"))}
type FreeForm = { readonly [key: string]: unknown }
type Upstream<T> = T extends ReadonlyArray<infer E>
  ? ReadonlyArray<Upstream<E>>
  : T extends object
    ? string extends keyof T
      ? [T[string & keyof T]] extends [never] ? FreeForm : { [K in keyof T]: Upstream<T[K]> }
      : { [K in keyof T]: Upstream<T[K]> }
    : T
type Ok<D, P extends keyof D, M extends string> = D[P] extends { [m in M]: { responses: { 200: { content: { "application/json": infer B } } } } } ? Upstream<B> : "no 200 JSON answer"
`

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2022.d.ts"],
  types: []
}

export interface Mismatch {
  readonly sample: string
  readonly line: string
  readonly message: string
}

/** Type-checks the samples; returns the mismatches and the file written (kept only when there are mismatches, to read). */
export const checkUpstreamTypes = (samples: ReadonlyArray<Sample>): { readonly file: string; readonly mismatches: ReadonlyArray<Mismatch> } => {
  const lines = PRELUDE(generatedClients).split("\n")
  const owner: Array<string | undefined> = lines.map(() => undefined)
  samples.forEach((sample, i) => {
    const json = JSON.stringify(sample.body, null, 1).split("\n")
    const declaration = [`// ${sample.name}`, `export const sample${i}: Ok<${sample.document}, ${JSON.stringify(sample.path)}, ${JSON.stringify(sample.method)}> = ${json[0]}`, ...json.slice(1)]
    for (const line of declaration) {
      lines.push(line)
      owner.push(sample.name)
    }
  })
  const dir = mkdtempSync(join(tmpdir(), "sandnet-upstream-"))
  const file = join(dir, "samples.ts")
  writeFileSync(file, lines.join("\n") + "\n")
  const program = ts.createProgram([file], OPTIONS)
  const diagnostics = [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics(), ...program.getGlobalDiagnostics(), ...program.getOptionsDiagnostics()]
  const mismatches = diagnostics.map((d): Mismatch => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n")
    if (d.file === undefined || d.start === undefined) return { sample: "(program)", line: "", message }
    const at = d.file.getLineAndCharacterOfPosition(d.start).line
    return { sample: d.file.fileName === file ? (owner[at] ?? "(prelude)") : d.file.fileName, line: (lines[at] ?? "").trim(), message }
  })
  if (mismatches.length === 0) rmSync(dir, { recursive: true })
  return { file, mismatches }
}
