/**
 * A precompiled yes-or-don't-know check of a Schema, for the interpreter's validation of root
 * command payloads and arguments: Schema's decoder builds an output value and an issue tree on
 * every call, which showed in profiles at one call per submitted command. The check answers true
 * only for input the decoder is certain to accept; anything else (false) goes to the decoder, which
 * then gives its usual result and error, so no invalid input is let through and no error changes.
 *
 * Only the shapes of compact-JSON payloads are compiled: keywords, literals, unions, structs without
 * excess-property options, arrays, string-keyed records and refinements of primitives (their own
 * filter runs). A schema containing anything else (transformations, declarations, suspensions, parse
 * option annotations) has no check, and is always decoded.
 */
import { Option, SchemaAST as AST } from "effect"

export type FastCheck = (input: unknown) => boolean

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const always: FastCheck = () => true

/** Refinements are compiled only over values that decode to themselves (no rebuilt object). */
const isPrimitive = (ast: AST.AST): boolean => {
  switch (ast._tag) {
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "Literal":
      return true
    case "Refinement":
      return isPrimitive(ast.from)
    default:
      return false
  }
}

const compile = (ast: AST.AST): FastCheck | undefined => {
  if (Option.isSome(AST.getParseOptionsAnnotation(ast))) return undefined
  switch (ast._tag) {
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "UnknownKeyword":
    case "AnyKeyword":
      return always
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "Union":
      return compileUnion(ast)
    case "Refinement":
      return compileRefinement(ast)
    case "TupleType":
      return compileArray(ast)
    case "TypeLiteral":
      if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return (u) => u !== null && u !== undefined
      return ast.indexSignatures.length > 0 ? compileRecord(ast) : compileStruct(ast)
    default:
      return undefined
  }
}

const compileUnion = (ast: AST.Union): FastCheck | undefined => {
  const members: Array<FastCheck> = []
  for (const type of ast.types) {
    const check = compile(type)
    if (check === undefined) return undefined
    members.push(check)
  }
  return (u) => {
    for (const member of members) if (member(u)) return true
    return false
  }
}

const compileRefinement = (ast: AST.Refinement): FastCheck | undefined => {
  if (!isPrimitive(ast.from)) return undefined
  const from = compile(ast.from)
  if (from === undefined) return undefined
  return (u) => from(u) && Option.isNone(ast.filter(u, AST.defaultParseOption, ast))
}

/** Arrays only (Schema.Array): no fixed elements, one rest type. */
const compileArray = (ast: AST.TupleType): FastCheck | undefined => {
  if (ast.elements.length > 0 || ast.rest.length !== 1) return undefined
  const item = compile(ast.rest[0]!.type)
  if (item === undefined) return undefined
  return (u) => {
    if (!Array.isArray(u)) return false
    for (const element of u) if (!item(element)) return false
    return true
  }
}

/** Records with string keys only (Schema.Record({ key: Schema.String, value })). */
const compileRecord = (ast: AST.TypeLiteral): FastCheck | undefined => {
  const index = ast.indexSignatures[0]!
  if (ast.propertySignatures.length > 0 || ast.indexSignatures.length > 1 || index.parameter._tag !== "StringKeyword") return undefined
  const value = compile(index.type)
  if (value === undefined) return undefined
  return (u) => {
    if (!isRecord(u) || Object.getOwnPropertySymbols(u).length > 0) return false
    for (const key of Object.keys(u)) if (!value(u[key])) return false
    return true
  }
}

const compileStruct = (ast: AST.TypeLiteral): FastCheck | undefined => {
  const fields: Array<{ readonly name: string; readonly optional: boolean; readonly check: FastCheck }> = []
  for (const ps of ast.propertySignatures) {
    if (typeof ps.name !== "string") return undefined
    const check = compile(ps.type)
    if (check === undefined) return undefined
    fields.push({ name: ps.name, optional: ps.isOptional, check })
  }
  return (u) => {
    if (!isRecord(u)) return false
    for (const field of fields) {
      if (!Object.hasOwn(u, field.name)) {
        if (field.optional) continue
        return false
      }
      if (!field.check(u[field.name])) return false
    }
    return true
  }
}

const compiled = new WeakMap<AST.AST, FastCheck | null>()

/** The schema's precompiled check, or undefined when its shape is not one compiled here. */
export const fastCheckOf = (ast: AST.AST): FastCheck | undefined => {
  let check = compiled.get(ast)
  if (check === undefined) {
    check = compile(ast) ?? null
    compiled.set(ast, check)
  }
  return check ?? undefined
}
