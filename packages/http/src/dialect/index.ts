/**
 * The node's dialect, chosen at start: the spec's names (default) or LocalNet's upstream names
 * (`sandnet start --localnet`). One engine serves both; the surfaces rename what crosses the wire
 * in one place (surface.ts `handleEndpoint`) with the node's name table (names.ts).
 *
 * Outbound, every JSON answer is renamed. Inbound, only the ledger and registry surfaces rename:
 * there clients name the engine's templates, choices, fields and instruments; the scan and wallet
 * surfaces' requests carry no such names, and their upstream spellings (e.g.
 * `/v0/external-party-amulet-rules`) are declared as they are.
 */
import { Context, Layer } from "effect"
import type { SurfaceName } from "../errors.ts"
import { nameTableOf, renameJson, specNames, type DialectName, type NameTable } from "./names.ts"

export { nameTableOf, renameJson, specNames, upstreamNames, type DialectName, type NameTable } from "./names.ts"

export class Dialect extends Context.Reference<Dialect>()("@sandnet/http/Dialect", {
  defaultValue: (): NameTable => specNames
}) {
  static readonly layer = (dialect: DialectName): Layer.Layer<Dialect> => Layer.succeed(Dialect, nameTableOf(dialect))
}

const RENAMED_INBOUND: ReadonlySet<SurfaceName> = new Set(["ledger", "registry"])

/** A request's decoded JSON (body or path parameters) in the engine's names. */
export const inbound = (names: NameTable, surface: SurfaceName, value: unknown): unknown =>
  names.dialect === "spec" || !RENAMED_INBOUND.has(surface) ? value : renameJson(value, names.inboundName)

/** An answer's encoded JSON in the client's names. */
export const outbound = (names: NameTable, value: unknown): unknown =>
  names.dialect === "spec" ? value : renameJson(value, names.outboundName)

/** A websocket request message (JSON text) in the engine's names; text that is not JSON stays. */
export const inboundText = (names: NameTable, surface: SurfaceName, text: string): string => {
  if (names.dialect === "spec" || !RENAMED_INBOUND.has(surface)) return text
  try {
    return JSON.stringify(inbound(names, surface, JSON.parse(text)))
  } catch {
    return text
  }
}
