/**
 * Created-event blobs (explicit disclosure): a contract as base64 of its canonical JSON, which a
 * client passes back as a disclosed contract. Scan and the registry serve the same blobs.
 */
import { Either, Schema } from "effect"
import { ActiveContract as ActiveContractSchema, canonicalJson, type ActiveContract } from "@sandnet/core"
import * as External from "../external/index.ts"

/** The created-event blob of a contract: what a client passes back as a disclosed contract. */
export const createdEventBlob = (contract: ActiveContract): string =>
  Buffer.from(canonicalJson({ sandnetCreatedEvent: 1, contract }), "utf8").toString("base64")

const decodeActiveContract = Schema.decodeUnknownEither(Schema.Struct({ sandnetCreatedEvent: Schema.Literal(1), contract: ActiveContractSchema }))

/** Reads a created-event blob back; undefined when it is not one. */
export const decodeCreatedEventBlob = (blob: string): ActiveContract | undefined => {
  const bytes = External.base64ToBytes(blob)
  if (bytes === undefined || bytes.length === 0) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes))
  } catch {
    return undefined
  }
  const decoded = decodeActiveContract(parsed)
  return Either.isRight(decoded) ? decoded.right.contract : undefined
}
