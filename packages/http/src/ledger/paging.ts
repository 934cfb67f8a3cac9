/**
 * What the list and page forms of the update and state services share: the list query (`limit`,
 * `stream_idle_timeout_ms`), page sizes and page tokens (base64url JSON: where the next page
 * starts, and a digest of the request it belongs to; a token only continues the request of its
 * first page).
 */
import { Either, Schema } from "effect"
import { LedgerApiError } from "../errors.ts"

const NonNegativeIntFromString = Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())

export const StreamListQuery = Schema.Struct({
  limit: Schema.optional(NonNegativeIntFromString),
  stream_idle_timeout_ms: Schema.optional(NonNegativeIntFromString)
})

export const NonNegativeOffset = Schema.Int.pipe(Schema.nonNegative())
export const PageSize = Schema.Int.pipe(Schema.positive())

/** The list forms' notice: the limit, then which lists wait for more. */
const listNotice = (waiting: string): string =>
  `\nNotice: at most \`limit\` items (capped by the node's list limit, 200 by default); ${waiting} up to stream_idle_timeout_ms (default 500) for more.`

export const LIST_NOTICE = listNotice("an open-ended request waits")

/** A completion list has no end bound, so every one waits. */
export const COMPLETIONS_LIST_NOTICE = listNotice("the list waits")

export const PAGE_NOTICE = "\nNotice: maxPageSize defaults to (and is capped by) the node's list limit, 200 by default."

/** What a page token carries: where the next page starts, and a digest of the request it belongs to. */
export const PageToken = Schema.Struct({
  v: Schema.Literal(1),
  kind: Schema.Literal("updates", "active-contracts"),
  at: Schema.Int.pipe(Schema.nonNegative()),
  offset: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  request: Schema.String
})
export type PageToken = typeof PageToken.Type

export const encodePageToken = (token: PageToken): string => Buffer.from(JSON.stringify(token), "utf8").toString("base64url")

/**
 * A page token this node did not give for the request: INVALID_ARGUMENT in the standard (JSON)
 * body, as Canton's request validation answers it. The token is a well-formed string, so it is not
 * one of the decode failures Canton answers as `text/plain` 400.
 */
export const invalidPageToken = (detail: string): LedgerApiError =>
  new LedgerApiError({
    code: "INVALID_ARGUMENT",
    category: "InvalidIndependentOfSystemState",
    cause: `The submitted request has invalid arguments: pageToken: ${detail}`,
    context: { field: "pageToken" }
  })

export const decodePageToken = (text: string | undefined, kind: PageToken["kind"], request: string): Either.Either<PageToken | undefined, LedgerApiError> => {
  if (text === undefined || text === "") return Either.right(undefined)
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(text, "base64url").toString("utf8"))
  } catch {
    return Either.left(invalidPageToken("is not a page token of this node"))
  }
  const decoded = Schema.decodeUnknownEither(PageToken)(json)
  if (Either.isLeft(decoded) || decoded.right.kind !== kind) return Either.left(invalidPageToken("is not a page token of this node"))
  if (decoded.right.request !== request) return Either.left(invalidPageToken("belongs to another request (a page token needs the request of its first page)"))
  return Either.right(decoded.right)
}

export const pageSize = (requested: number | undefined, limit: number): number => Math.min(requested ?? limit, limit)
