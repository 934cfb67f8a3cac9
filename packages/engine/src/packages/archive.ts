/**
 * Daml-LF's `Archive` envelope (daml_lf.proto), the content of each .dalf:
 *
 *     enum HashFunction { SHA256 = 0; }
 *     message Archive { HashFunction hash_function = 1; bytes payload = 3; string hash = 4; }
 *
 * `hash` is the lowercase hex SHA-256 of `payload` and is the package id.
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire"
import { Either } from "effect"
import { decodeWith, expectWire, readFields, readString, writeBytes, writeEnum, writeString } from "./wire.ts"

export const HASH_FUNCTION_SHA256 = 0

export interface ArchiveMessage {
  readonly hashFunction: number
  readonly payload: Uint8Array
  readonly hash: string
}

export const encodeArchive = (archive: ArchiveMessage): Uint8Array => {
  const w = new BinaryWriter()
  writeEnum(w, 1, archive.hashFunction)
  writeBytes(w, 3, archive.payload)
  writeString(w, 4, archive.hash)
  return w.finish()
}

export const decodeArchive = (bytes: Uint8Array): Either.Either<ArchiveMessage, string> => {
  const result = decodeWith(() => {
    let hashFunction = HASH_FUNCTION_SHA256
    let payload: Uint8Array = new Uint8Array(0)
    let hash = ""
    let seen = false
    readFields(bytes, "Archive", (field, wire, r) => {
      if (field === 1) {
        expectWire("Archive", "hash_function", wire, WireType.Varint)
        hashFunction = r.int32()
      } else if (field === 3) {
        expectWire("Archive", "payload", wire, WireType.LengthDelimited)
        payload = r.bytes()
      } else if (field === 4) {
        expectWire("Archive", "hash", wire, WireType.LengthDelimited)
        hash = readString(r, "Archive", "hash")
      } else return false
      seen = true
      return true
    })
    if (!seen || payload.length === 0) throw new Error("Archive has no payload")
    return { hashFunction, payload, hash }
  })
  return "ok" in result ? Either.right(result.ok) : Either.left(result.error)
}
