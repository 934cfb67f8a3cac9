/**
 * Daml values as scan renders them: `compact_json` is the payload as stored; `protobuf_json` is
 * the typed encoding of core's `toProtobufJson`, driven by the template's payload Schema (and a
 * choice's argument Schema); values without a known Schema (exercise results) are typed from
 * their JSON shape.
 *
 * JSON rendering: it belongs to the HTTP layer and moves there with the rest of scan/json/.
 */
import type { Schema } from "effect"
import { toProtobufJson, type CreatedNode, type ExercisedNode, type Json, type JsonObject } from "@sandnet/core"
import type { Template, TemplateRegistry } from "../../ledger/template.ts"

export type ValueEncoding = "compact_json" | "protobuf_json"

/** The typed protobuf JSON of a value whose Schema is unknown, from the shape of its JSON. */
export const untypedProtobufJson = (value: Json): Json => {
  if (value === null) return { optional: {} }
  if (typeof value === "string") return { text: value }
  if (typeof value === "number") return { int64: String(value) }
  if (typeof value === "boolean") return { bool: value }
  if (Array.isArray(value)) return { list: { elements: value.map(untypedProtobufJson) } }
  const record = value as JsonObject
  return { record: { fields: Object.keys(record).map((label) => ({ label, value: untypedProtobufJson(record[label] ?? null) })) } }
}

export const encodeWith = (schema: Schema.Schema.Any | undefined, value: Json, encoding: ValueEncoding): Json =>
  encoding === "compact_json" ? value : schema === undefined ? untypedProtobufJson(value) : toProtobufJson(schema, value)

const templateOf = (registry: TemplateRegistry, templateId: string): Template<unknown> | undefined => registry.lookup(templateId)

export const encodePayload = (registry: TemplateRegistry, created: CreatedNode, encoding: ValueEncoding): Json =>
  encodeWith(templateOf(registry, created.templateId)?.payload as Schema.Schema.Any | undefined, created.createArguments, encoding)

export const encodeChoiceArgument = (registry: TemplateRegistry, node: ExercisedNode, encoding: ValueEncoding): Json =>
  encodeWith(
    templateOf(registry, node.templateId)?.choices.get(node.choice)?.argument as Schema.Schema.Any | undefined,
    node.choiceArgument,
    encoding
  )

/** How to render values: the templates that type them, and the encoding. */
export interface RenderOptions {
  readonly registry: TemplateRegistry
  readonly encoding: ValueEncoding
}

/** Parties in a stable (sorted) order. */
export const sortedParties = (parties: ReadonlyArray<string>): ReadonlyArray<string> => [...parties].sort()
