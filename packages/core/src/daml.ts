/**
 * Contract payloads are Daml values. A payload Schema is built from the primitives below; each
 * carries an annotation naming its Daml type, so the same Schema both validates a payload (its
 * compact JSON form is the Schema's type: no decoding cost on the hot path) and drives the
 * verbose, typed `protobuf_json` encoding that scan offers for lossless parsing.
 */
import { Schema, SchemaAST } from "effect"
import { isAmountString } from "./amount.ts"
import { parseIso } from "./time.ts"
import type { Json } from "./hash.ts"

export const DamlTypeId: unique symbol = Symbol.for("sandnet/DamlType")

export type DamlPrimitive = "party" | "numeric" | "int64" | "text" | "bool" | "timestamp" | "contractId" | "unit"

const damlType = (t: DamlPrimitive) => ({ [DamlTypeId]: t })

export const Party = Schema.String.pipe(
  Schema.pattern(/^[^:]{1,185}::1220[0-9a-f]{64}$/),
  Schema.annotations({ identifier: "Party", ...damlType("party") })
)
export const Numeric = Schema.String.pipe(
  Schema.filter((s) => isAmountString(s) || "a decimal with at most 10 fractional digits"),
  Schema.annotations({ identifier: "Numeric10", ...damlType("numeric") })
)
/** Daml Int64 travels as a decimal string in JSON, like the ledger's own encoding. */
export const Int64 = Schema.String.pipe(
  Schema.pattern(/^-?\d{1,19}$/),
  Schema.annotations({ identifier: "Int64", ...damlType("int64") })
)
export const Text = Schema.String.annotations({ identifier: "Text", ...damlType("text") })
export const Bool = Schema.Boolean.annotations({ identifier: "Bool", ...damlType("bool") })
export const Timestamp = Schema.String.pipe(
  Schema.filter((s) => parseIso(s) !== undefined || "an ISO-8601 timestamp"),
  Schema.annotations({ identifier: "Timestamp", ...damlType("timestamp") })
)
export const ContractIdRef = Schema.String.pipe(
  Schema.pattern(/^00[0-9a-f]{64}[0-9a-f]*$/),
  Schema.annotations({ identifier: "ContractId", ...damlType("contractId") })
)
export const Unit = Schema.Struct({}).annotations({ identifier: "Unit", ...damlType("unit") })

/** Daml `Optional a`: null when absent, as in the compact JSON encoding. */
export const Optional = <A, I>(value: Schema.Schema<A, I>) => Schema.NullOr(value)
export const List = <A, I>(value: Schema.Schema<A, I>) => Schema.Array(value)
/** Daml `Map Text a` / `TextMap a`. */
export const TextMap = <A, I>(value: Schema.Schema<A, I>) => Schema.Record({ key: Schema.String, value })

/**
 * Encodes a compact-JSON value into the typed protobuf_json form, guided by its Schema:
 * records become `{record: {fields: [{label, value}]}}`, primitives `{party: ..}`, `{numeric: ..}`,
 * lists `{list: {elements}}`, optionals `{optional: {value}}`, text maps `{textMap: {entries}}`.
 */
export const toProtobufJson = (schema: Schema.Schema.Any, value: Json): Json => encodeWith(schema.ast, value)

/** The Daml primitive a Schema node is (its annotation, or its refined base's); undefined for composites. */
export const damlPrimitiveOf = (ast: SchemaAST.AST): DamlPrimitive | undefined => {
  const own = ast.annotations[DamlTypeId] as DamlPrimitive | undefined
  if (own !== undefined) return own
  if (SchemaAST.isRefinement(ast)) return damlPrimitiveOf(ast.from)
  return undefined
}

const encodeWith = (ast: SchemaAST.AST, value: Json): Json => {
  const primitive = damlPrimitiveOf(ast)
  if (primitive !== undefined) {
    if (primitive === "unit") return { unit: {} }
    if (primitive === "contractId") return { contractId: value }
    return { [primitive]: value }
  }
  switch (ast._tag) {
    case "Refinement":
      return encodeWith(ast.from, value)
    case "Suspend":
      return encodeWith(ast.f(), value)
    case "Transformation":
      return encodeWith(ast.to, value)
    case "StringKeyword":
      return { text: value }
    case "BooleanKeyword":
      return { bool: value }
    case "NumberKeyword":
      return { int64: String(value) }
    case "Literal":
      return { enum: { constructor: String(ast.literal) } }
    case "Union":
      return encodeUnion(ast, value)
    case "TupleType": {
      const element = ast.rest[0]?.type
      const items = Array.isArray(value) ? value : []
      return { list: { elements: items.map((item) => (element === undefined ? item : encodeWith(element, item))) } }
    }
    case "TypeLiteral":
      return encodeTypeLiteral(ast, value)
    default:
      return value
  }
}

/** Optionals (`{optional}`), variants (`{variant: {constructor, value}}`) and enums. */
const encodeUnion = (ast: SchemaAST.Union, value: Json): Json => {
  if (value === null) return { optional: {} }
  const nonNull = ast.types.filter((t) => !(SchemaAST.isLiteral(t) && t.literal === null))
  if (nonNull.length === 1 && nonNull[0] !== undefined) {
    return { optional: { value: encodeWith(nonNull[0], value) } }
  }
  // A variant: members are records tagged by a `tag` literal.
  const tag = isRecord(value) ? value["tag"] : undefined
  if (typeof tag === "string") {
    // Daml variants travel as {tag, value}; the typed form is {variant: {constructor, value}}.
    const member = nonNull.find((t): t is SchemaAST.TypeLiteral => SchemaAST.isTypeLiteral(t) && variantTagOf(t) === tag)
    const payload = isRecord(value) ? (value["value"] ?? null) : null
    const payloadAst = member?.propertySignatures.find((p) => p.name === "value")?.type
    return { variant: { constructor: tag, value: payloadAst === undefined ? { unit: {} } : encodeWith(payloadAst, payload) } }
  }
  if (typeof value === "string") return { enum: { constructor: value } }
  return { text: JSON.stringify(value) }
}

/** Text maps (`{textMap: {entries}}`, keys sorted) and records (`{record: {fields}}`). */
const encodeTypeLiteral = (ast: SchemaAST.TypeLiteral, value: Json): Json => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value
  const record = value as { readonly [key: string]: Json }
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length > 0) {
    const valueAst = ast.indexSignatures[0]!.type
    return {
      textMap: {
        entries: Object.keys(record)
          .sort()
          .map((key) => ({ key, value: encodeWith(valueAst, record[key] ?? null) }))
      }
    }
  }
  return {
    record: {
      fields: ast.propertySignatures.map((p) => ({
        label: String(p.name),
        value: encodeWith(p.type, record[String(p.name)] ?? null)
      }))
    }
  }
}

const isRecord = (value: Json): value is { readonly [key: string]: Json } =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** The constructor a variant member (a record with a `tag` literal) stands for. */
export const variantTagOf = (ast: SchemaAST.TypeLiteral): string | undefined => {
  const tag = ast.propertySignatures.find((p) => p.name === "tag")
  return tag !== undefined && SchemaAST.isLiteral(tag.type) ? String(tag.type.literal) : undefined
}
