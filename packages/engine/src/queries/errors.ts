/**
 * The ledger API's tagged errors shared by several queries: an update that is not visible, an
 * offset after the ledger end, and template, interface or package-name references that resolve to
 * nothing (topic-specific errors stay with their query).
 */
import { Schema } from "effect"
import type { InvalidArgument } from "@sandnet/core"

/** No update with this id or offset is visible with the requested format (UPDATE_NOT_FOUND). */
export class UpdateNotFound extends Schema.TaggedError<UpdateNotFound>()("UpdateNotFound", {
  updateId: Schema.optional(Schema.String),
  offset: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return this.updateId !== undefined
      ? `Update not found, or not visible: update id ${this.updateId}`
      : `Update not found, or not visible: offset ${this.offset}`
  }
}

/** An offset of the request lies after the participant's ledger end (OFFSET_AFTER_LEDGER_END). */
export class OffsetAfterLedgerEnd extends Schema.TaggedError<OffsetAfterLedgerEnd>()("OffsetAfterLedgerEnd", {
  field: Schema.String,
  offset: Schema.Number,
  ledgerEnd: Schema.Number
}) {
  override get message(): string {
    return `${this.field} (${this.offset}) is after the ledger end (${this.ledgerEnd})`
  }
}

/** A page token whose position lies outside its request's range or after the ledger end (not one this node gave). */
export class NotAPageToken extends Schema.TaggedError<NotAPageToken>()("NotAPageToken", {}) {
  override get message(): string {
    return "is not a page token of this node"
  }
}

/** Template or interface references that name nothing known (TEMPLATES_OR_INTERFACES_NOT_FOUND). */
export class TemplatesOrInterfacesNotFound extends Schema.TaggedError<TemplatesOrInterfacesNotFound>()(
  "TemplatesOrInterfacesNotFound",
  { references: Schema.Array(Schema.String) }
) {
  override get message(): string {
    return `Templates or interfaces do not exist: ${this.references.join(", ")}. Sandnet has only its own templates and does not execute Daml-LF (templates of your own DARs cannot be used)`
  }
}

/** Package-name references whose package name is unknown (PACKAGE_NAMES_NOT_FOUND). */
export class PackageNamesNotFound extends Schema.TaggedError<PackageNamesNotFound>()("PackageNamesNotFound", {
  names: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `The following package names do not match upgradable packages uploaded on this participant: ${this.names.join(", ")}`
  }
}

export type FilterResolutionError = InvalidArgument | TemplatesOrInterfacesNotFound | PackageNamesNotFound
