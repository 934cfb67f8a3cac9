/**
 * Sandnet's compact-JSON Daml values <-> the ledger API's protobuf `Value` (Canton's published
 * bindings, @canton-network/core-ledger-proto), as a prepared transaction carries them.
 *
 * Guided by a payload or choice-argument Schema (core's Daml primitives: Party, Numeric, Int64,
 * Timestamp, ContractId, ...), values get their Daml types: records with field labels, optionals,
 * variants (`{tag, value}`), enums, lists and text maps. Where no Schema is known (choice results)
 * or the JSON does not fit the Schema, the generic mapping is used: null -> None, boolean -> Bool,
 * integer -> Int64, other number -> Numeric, string -> Text, array -> List, object -> Record.
 *
 * `jsonOfDamlValue` is the inverse, used to read a prepared transaction's root commands back. It
 * never fails: a value that does not fit its Schema comes back in the generic form and is then
 * refused by the template's own argument check, or by the hash comparison at execution.
 */
import type { Value } from "@canton-network/core-ledger-proto"
import { damlPrimitiveOf, parseIso, toIso, variantTagOf, type DamlPrimitive, type Json } from "@sandnet/core"
import { SchemaAST, type Schema } from "effect"

type Sum = Value["sum"]

const value = (sum: Sum): Value => ({ sum })
const text = (s: string): Value => value({ oneofKind: "text", text: s })
const none: Value = value({ oneofKind: "optional", optional: {} })
const some = (inner: Value): Value => value({ oneofKind: "optional", optional: { value: inner } })
const unit = (): Value => value({ oneofKind: "unit", unit: {} })

const isObject = (json: Json | undefined): json is { readonly [key: string]: Json } =>
  json !== null && json !== undefined && typeof json === "object" && !Array.isArray(json)

const isAbsentMember = (ast: SchemaAST.AST): boolean =>
  (SchemaAST.isLiteral(ast) && ast.literal === null) || SchemaAST.isUndefinedKeyword(ast)

// ---------------------------------------------------------------------------------------------
// JSON -> Value
// ---------------------------------------------------------------------------------------------

/** A JSON value as a Daml Value; with a Schema, typed as the Schema says. */
export const damlValueOf = (schema: Schema.Schema.Any | undefined, json: Json): Value =>
  schema === undefined ? genericValue(json) : encodeAst(schema.ast, json)

/** The generic mapping (no type information). */
export const genericValue = (json: Json): Value => {
  if (json === null) return none
  if (typeof json === "boolean") return value({ oneofKind: "bool", bool: json })
  if (typeof json === "number") {
    return Number.isSafeInteger(json) ? value({ oneofKind: "int64", int64: String(json) }) : value({ oneofKind: "numeric", numeric: String(json) })
  }
  if (typeof json === "string") return text(json)
  if (Array.isArray(json)) return value({ oneofKind: "list", list: { elements: json.map(genericValue) } })
  const record = json as { readonly [key: string]: Json }
  return value({ oneofKind: "record", record: { fields: Object.keys(record).map((label) => ({ label, value: genericValue(record[label]!) })) } })
}

const encodePrimitive = (primitive: DamlPrimitive, json: Json): Value => {
  if (primitive === "unit") return unit()
  if (primitive === "bool") return typeof json === "boolean" ? value({ oneofKind: "bool", bool: json }) : genericValue(json)
  if (typeof json !== "string") return genericValue(json)
  switch (primitive) {
    case "party":
      return value({ oneofKind: "party", party: json })
    case "numeric":
      return value({ oneofKind: "numeric", numeric: json })
    case "int64":
      return value({ oneofKind: "int64", int64: json })
    case "contractId":
      return value({ oneofKind: "contractId", contractId: json })
    case "timestamp": {
      const micros = parseIso(json)
      return micros === undefined ? text(json) : value({ oneofKind: "timestamp", timestamp: String(micros) })
    }
    case "text":
      return text(json)
  }
}

const encodeAst = (ast: SchemaAST.AST, json: Json): Value => {
  const primitive = damlPrimitiveOf(ast)
  if (primitive !== undefined) return encodePrimitive(primitive, json)
  switch (ast._tag) {
    case "Refinement":
      return encodeAst(ast.from, json)
    case "Suspend":
      return encodeAst(ast.f(), json)
    case "Transformation":
      return encodeAst(ast.to, json)
    case "Literal":
      return ast.literal !== null && json === ast.literal ? value({ oneofKind: "enum", enum: { constructor: String(ast.literal) } }) : genericValue(json)
    case "Union":
      return encodeUnion(ast, json)
    case "TupleType": {
      const element = ast.rest[0]?.type
      if (!Array.isArray(json) || element === undefined) return genericValue(json)
      return value({ oneofKind: "list", list: { elements: json.map((item) => encodeAst(element, item)) } })
    }
    case "TypeLiteral":
      return encodeTypeLiteral(ast, json)
    default:
      return genericValue(json)
  }
}

/** Optionals, variants (`{tag, value}`) and enums (string literals). */
const encodeUnion = (ast: SchemaAST.Union, json: Json): Value => {
  const present = ast.types.filter((t) => !isAbsentMember(t))
  const optional = present.length < ast.types.length
  if (optional && json === null) return none
  if (present.length === 1) return optional ? some(encodeAst(present[0]!, json)) : encodeAst(present[0]!, json)
  if (isObject(json) && typeof json["tag"] === "string") {
    const tag = json["tag"]
    const member = present.find((t): t is SchemaAST.TypeLiteral => SchemaAST.isTypeLiteral(t) && variantTagOf(t) === tag)
    if (member !== undefined) {
      const payloadAst = member.propertySignatures.find((p) => p.name === "value")?.type
      const payload = payloadAst === undefined ? unit() : encodeAst(payloadAst, json["value"] ?? null)
      const variant = value({ oneofKind: "variant", variant: { constructor: tag, value: payload } })
      return optional ? some(variant) : variant
    }
  }
  if (typeof json === "string" && present.some((t) => SchemaAST.isLiteral(t) && t.literal === json)) {
    const enumValue = value({ oneofKind: "enum", enum: { constructor: json } })
    return optional ? some(enumValue) : enumValue
  }
  return genericValue(json)
}

/** Records (fields in the Schema's order, with labels) and text maps (keys sorted). */
const encodeTypeLiteral = (ast: SchemaAST.TypeLiteral, json: Json): Value => {
  if (!isObject(json)) return genericValue(json)
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length > 0) {
    const valueAst = ast.indexSignatures[0]!.type
    const entries = Object.keys(json)
      .sort()
      .map((key) => ({ key, value: encodeAst(valueAst, json[key]!) }))
    return value({ oneofKind: "textMap", textMap: { entries } })
  }
  const fields = ast.propertySignatures.map((p) => ({ label: String(p.name), value: encodeAst(p.type, json[String(p.name)] ?? null) }))
  return value({ oneofKind: "record", record: { fields } })
}

// ---------------------------------------------------------------------------------------------
// Value -> JSON
// ---------------------------------------------------------------------------------------------

/** A Daml Value back as compact JSON; with a Schema, as the Schema's type. */
export const jsonOfDamlValue = (schema: Schema.Schema.Any | undefined, damlValue: Value | undefined): Json =>
  damlValue === undefined ? null : schema === undefined ? genericJson(damlValue) : decodeAst(schema.ast, damlValue)

/** The generic reading (no type information). */
export const genericJson = (damlValue: Value | undefined): Json => {
  if (damlValue === undefined) return null
  const sum = damlValue.sum
  switch (sum.oneofKind) {
    case "unit":
      return {}
    case "bool":
      return sum.bool
    case "int64":
      return Number(sum.int64)
    case "numeric":
      return Number(sum.numeric)
    case "date":
      return sum.date
    case "timestamp":
      return isoOf(sum.timestamp)
    case "party":
      return sum.party
    case "text":
      return sum.text
    case "contractId":
      return sum.contractId
    default:
      return genericComposite(sum)
  }
}

const genericComposite = (sum: Sum): Json => {
  switch (sum.oneofKind) {
    case "optional":
      return sum.optional.value === undefined ? null : genericJson(sum.optional.value)
    case "list":
      return sum.list.elements.map(genericJson)
    case "textMap":
      return Object.fromEntries(sum.textMap.entries.map((e) => [e.key, genericJson(e.value)]))
    case "genMap":
      return sum.genMap.entries.map((e) => [genericJson(e.key), genericJson(e.value)])
    case "record":
      return Object.fromEntries(sum.record.fields.map((f) => [f.label, genericJson(f.value)]))
    case "variant":
      return { tag: sum.variant.constructor, value: genericJson(sum.variant.value) }
    case "enum":
      return sum.enum.constructor
    default:
      return null
  }
}

/** Microseconds as ISO-8601; a value no date can have stays as given (the template's check refuses it). */
const isoOf = (micros: string): string => {
  const t = Number(micros)
  return Number.isSafeInteger(t) ? toIso(t) : micros
}

const decodePrimitive = (primitive: DamlPrimitive, damlValue: Value): Json => {
  const sum = damlValue.sum
  if (primitive === "timestamp" && sum.oneofKind === "timestamp") return isoOf(sum.timestamp)
  if (primitive === "int64" && sum.oneofKind === "int64") return sum.int64
  if (primitive === "numeric" && sum.oneofKind === "numeric") return sum.numeric
  return genericJson(damlValue)
}

const decodeAst = (ast: SchemaAST.AST, damlValue: Value): Json => {
  const primitive = damlPrimitiveOf(ast)
  if (primitive !== undefined) return decodePrimitive(primitive, damlValue)
  const sum = damlValue.sum
  switch (ast._tag) {
    case "Refinement":
      return decodeAst(ast.from, damlValue)
    case "Suspend":
      return decodeAst(ast.f(), damlValue)
    case "Transformation":
      return decodeAst(ast.to, damlValue)
    case "Literal":
      return sum.oneofKind === "enum" && sum.enum.constructor === String(ast.literal) ? literalJson(ast.literal) : genericJson(damlValue)
    case "NumberKeyword":
      return sum.oneofKind === "int64" ? Number(sum.int64) : sum.oneofKind === "numeric" ? Number(sum.numeric) : genericJson(damlValue)
    case "Union":
      return decodeUnion(ast, damlValue)
    case "TupleType": {
      const element = ast.rest[0]?.type
      return sum.oneofKind === "list" && element !== undefined ? sum.list.elements.map((e) => decodeAst(element, e)) : genericJson(damlValue)
    }
    case "TypeLiteral":
      return decodeTypeLiteral(ast, damlValue)
    default:
      return genericJson(damlValue)
  }
}

const decodeUnion = (ast: SchemaAST.Union, damlValue: Value): Json => {
  const present = ast.types.filter((t) => !isAbsentMember(t))
  const optional = present.length < ast.types.length
  let inner: Value = damlValue
  if (optional) {
    if (damlValue.sum.oneofKind !== "optional") return genericJson(damlValue)
    if (damlValue.sum.optional.value === undefined) return null
    inner = damlValue.sum.optional.value
  }
  if (present.length === 1) return decodeAst(present[0]!, inner)
  const sum = inner.sum
  if (sum.oneofKind === "variant") {
    const tag = sum.variant.constructor
    const member = present.find((t): t is SchemaAST.TypeLiteral => SchemaAST.isTypeLiteral(t) && variantTagOf(t) === tag)
    const payloadAst = member?.propertySignatures.find((p) => p.name === "value")?.type
    if (member !== undefined) return payloadAst === undefined ? { tag } : { tag, value: decodeAst(payloadAst, sum.variant.value ?? none) }
  }
  if (sum.oneofKind === "enum") return sum.enum.constructor
  return genericJson(inner)
}

const decodeTypeLiteral = (ast: SchemaAST.TypeLiteral, damlValue: Value): Json => {
  const sum = damlValue.sum
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length > 0) {
    const valueAst = ast.indexSignatures[0]!.type
    if (sum.oneofKind !== "textMap") return genericJson(damlValue)
    return Object.fromEntries(sum.textMap.entries.map((e) => [e.key, e.value === undefined ? null : decodeAst(valueAst, e.value)]))
  }
  if (sum.oneofKind !== "record") return genericJson(damlValue)
  const out: { [key: string]: Json } = {}
  for (const field of sum.record.fields) {
    const property = ast.propertySignatures.find((p) => String(p.name) === field.label)
    const decoded = field.value === undefined ? null : property === undefined ? genericJson(field.value) : decodeAst(property.type, field.value)
    // A field the Schema marks optional (may be missing) and that is None is left out.
    if (decoded === null && property?.isOptional === true && !acceptsNull(property.type)) continue
    out[field.label] = decoded
  }
  return out
}

const literalJson = (literal: SchemaAST.LiteralValue): Json => (typeof literal === "bigint" ? String(literal) : literal)

const acceptsNull = (ast: SchemaAST.AST): boolean =>
  SchemaAST.isUnion(ast) ? ast.types.some((t) => SchemaAST.isLiteral(t) && t.literal === null) : SchemaAST.isLiteral(ast) && ast.literal === null
