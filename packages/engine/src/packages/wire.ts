/** Small helpers over @bufbuild/protobuf's wire API for the package codecs. */
import { BinaryReader, type BinaryWriter, WireType } from "@bufbuild/protobuf/wire"

export class WireFailure extends Error {}

export const writeMessage = (writer: BinaryWriter, field: number, encode: (writer: BinaryWriter) => void): void => {
  writer.tag(field, WireType.LengthDelimited).fork()
  encode(writer)
  writer.join()
}
export const writeString = (writer: BinaryWriter, field: number, value: string): void => {
  if (value !== "") writer.tag(field, WireType.LengthDelimited).string(value)
}
/** A repeated string element is written even when empty. */
export const writeRepeatedString = (writer: BinaryWriter, field: number, value: string): void => {
  writer.tag(field, WireType.LengthDelimited).string(value)
}
export const writeBytes = (writer: BinaryWriter, field: number, value: Uint8Array): void => {
  if (value.length > 0) writer.tag(field, WireType.LengthDelimited).bytes(value)
}
export const writeEnum = (writer: BinaryWriter, field: number, value: number): void => {
  if (value !== 0) writer.tag(field, WireType.Varint).int32(value)
}
export const writeBool = (writer: BinaryWriter, field: number, value: boolean): void => {
  if (value) writer.tag(field, WireType.Varint).bool(true)
}

/** Walks the fields of one message; `on` returns false for fields it does not know (they are skipped). */
export const readFields = (
  bytes: Uint8Array,
  message: string,
  on: (field: number, wireType: WireType, reader: BinaryReader) => boolean
): void => {
  const reader = new BinaryReader(bytes)
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag()
    if (field <= 0) throw new WireFailure(`${message}: invalid field number ${field}`)
    if (!on(field, wireType, reader)) reader.skip(wireType, field)
  }
}

export const expectWire = (message: string, name: string, actual: WireType, expected: WireType): void => {
  if (actual !== expected) throw new WireFailure(`${message}.${name}: wire type ${actual}, expected ${expected}`)
}

export const readString = (reader: BinaryReader, message: string, name: string): string => {
  try {
    return reader.string(true)
  } catch {
    throw new WireFailure(`${message}.${name}: invalid UTF-8`)
  }
}

/** Runs a decoder, turning wire failures and reader exceptions into a reason. */
export const decodeWith = <A>(run: () => A): { readonly ok: A } | { readonly error: string } => {
  try {
    return { ok: run() }
  } catch (error) {
    if (error instanceof WireFailure) return { error: error.message }
    return { error: `malformed protobuf: ${error instanceof Error ? error.message : String(error)}` }
  }
}
