import { describe, expect, it } from "@effect/vitest"
import { Either, Schema, SchemaAST } from "effect"
import { ALL_PACKAGES, TemplateRegistry } from "../../src/index.ts"
import { ExternalPartySetupPackage } from "../../src/wallet/external-party.ts"
import { fastCheckOf } from "../../src/ledger/fast-check.ts"

// Every payload and choice argument of the coin network's packages.
const registry = new TemplateRegistry([...ALL_PACKAGES, ExternalPartySetupPackage])
const schemas: Array<readonly [string, Schema.Schema<unknown>]> = []
for (const template of registry.all()) {
  schemas.push([`${template.entityName} payload`, template.payload])
  for (const [name, choice] of template.choices) schemas.push([`${template.entityName}.${name}`, choice.argument as Schema.Schema<unknown>])
}

/** Variants of a valid value with one leaf or field broken (wrong type, removed, null). */
const broken = (value: unknown): Array<unknown> => {
  const out: Array<unknown> = [null, undefined, 1, "x", [], {}]
  const visit = (v: unknown, rebuild: (replacement: unknown) => unknown, depth: number): void => {
    if (depth > 4) return
    if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, (r) => rebuild(v.map((x, j) => (j === i ? r : x))), depth + 1))
      out.push(rebuild([...v, 42]))
    } else if (typeof v === "object" && v !== null) {
      for (const key of Object.keys(v)) {
        const record = v as Record<string, unknown>
        const { [key]: _, ...without } = record
        out.push(rebuild(without))
        visit(record[key], (r) => rebuild({ ...record, [key]: r }), depth + 1)
      }
    } else {
      for (const r of [null, 7, "not-valid", true, undefined]) out.push(rebuild(r))
    }
  }
  visit(value, (r) => r, 0)
  return out
}

const party = "alice::1220" + "ab".repeat(32)
const leaves: ReadonlyArray<unknown> = [party, "12.5000000000", "3", "00" + "cd".repeat(33), "2026-01-01T00:00:00Z", "17", "x", "", 0, 1.5, true, false, null]

/**
 * A few values of a schema's encoded side, built from its AST: every leaf string or number is taken
 * from a pool of candidates that its own decoder accepts (Schema's Arbitrary samples filtered
 * strings by rejection, which never ends for patterns like a party id).
 */
const leafPools = new Map<SchemaAST.AST, Array<unknown>>()
const samples = (ast: SchemaAST.AST, seed: number, depth = 0): Array<unknown> => {
  const leafOf = (): Array<unknown> => {
    let pool = leafPools.get(ast)
    if (pool === undefined) {
      const decode = Schema.decodeUnknownEither(Schema.make(ast))
      leafPools.set(ast, (pool = leaves.filter((leaf) => Either.isRight(decode(leaf)))))
    }
    return pool
  }
  switch (ast._tag) {
    case "TypeLiteral": {
      if (ast.indexSignatures.length > 0) return [{}, ...samples(ast.indexSignatures[0]!.type, seed, depth + 1).slice(0, 2).map((v) => ({ k: v }))]
      const out: Array<unknown> = []
      for (let variant = 0; variant < 3; variant++) {
        const record: Record<string, unknown> = {}
        for (const [i, ps] of ast.propertySignatures.entries()) {
          if (ps.isOptional && (variant + i) % 2 === 0) continue
          const options = samples(ps.type, seed + i, depth + 1)
          if (options.length > 0) record[String(ps.name)] = options[(seed + variant + i) % options.length]
        }
        out.push(record)
      }
      return out
    }
    case "TupleType":
      return depth > 6 || ast.rest.length === 0 ? [[]] : [[], samples(ast.rest[0]!.type, seed, depth + 1).slice(0, 2)]
    case "Union":
      return ast.types.flatMap((t, i) => samples(t, seed + i, depth + 1).slice(0, 2))
    case "Suspend":
      return depth > 6 ? [] : samples(ast.f(), seed, depth + 1)
    case "Transformation":
      return samples(ast.from, seed, depth + 1)
    case "Literal":
      return [ast.literal]
    default:
      return leafOf()
  }
}

describe("the interpreter's precompiled schema check", () => {
  it("compiles the shapes of most payloads and arguments", () => {
    const compiled = schemas.filter(([, s]) => fastCheckOf(s.ast) !== undefined).length
    expect(compiled).toBeGreaterThan(schemas.length / 2)
  })

  it("accepts only what the decoder accepts, and accepts valid values it compiles", () => {
    let valid = 0
    for (const [name, schema] of schemas) {
      const check = fastCheckOf(schema.ast)
      if (check === undefined) continue
      const decode = Schema.decodeUnknownEither(schema)
      for (let seed = 0; seed < 2; seed++) {
        for (const value of samples(schema.ast, seed)) {
          if (Either.isRight(decode(value))) valid++
          expect(check(value), `${name}: ${JSON.stringify(value)}`).toBe(Either.isRight(decode(value)))
          for (const variant of broken(value)) if (check(variant)) expect(Either.isRight(decode(variant)), `${name}: ${JSON.stringify(variant)}`).toBe(true)
        }
      }
    }
    // The samples are not all broken ones: valid values were checked too.
    expect(valid).toBeGreaterThan(schemas.length)
  })
})
