/** How the pages write amounts, ids and times. */

/** "1234.5000000000" -> "1,234.5" (at most `digits` fractional digits, trailing zeros dropped). */
export const formatAmount = (text: string | undefined, digits = 4): string => {
  if (text === undefined || text === "") return "—"
  const negative = text.startsWith("-")
  const [whole = "0", fraction = ""] = (negative ? text.slice(1) : text).split(".")
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")
  const cut = fraction.slice(0, digits).replace(/0+$/, "")
  return `${negative ? "-" : ""}${grouped}${cut === "" ? "" : `.${cut}`}`
}

/** `prefix::1220abcd…` -> `prefix::1220ab…cd12`; other long ids keep their first and last characters. */
export const shortId = (id: string, keep = 6): string => {
  const at = id.indexOf("::")
  if (at >= 0) {
    const ns = id.slice(at + 2)
    return ns.length <= keep * 2 + 1 ? id : `${id.slice(0, at)}::${ns.slice(0, keep)}…${ns.slice(-4)}`
  }
  return id.length <= keep * 2 + 4 ? id : `${id.slice(0, keep + 2)}…${id.slice(-keep)}`
}

/** The party's hint (the part before `::`). */
export const partyName = (party: string): string => party.split("::")[0] ?? party

/** The entity of a template id: `pkg:Module.Name:Entity` -> `Entity`. */
export const entityOf = (templateId: string): string => templateId.slice(templateId.lastIndexOf(":") + 1)

export const formatTime = (iso: string | undefined): string => {
  if (iso === undefined || iso === "") return "—"
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")
}

/** A compact JSON value read from a payload: `{amount: "1.0"}`, `{number: "3"}`, or the string itself. */
export const field = (value: unknown, ...path: ReadonlyArray<string>): string | undefined => {
  let v = value
  for (const key of path) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined
  return typeof v === "string" || typeof v === "number" ? String(v) : undefined
}

/** Ledger timestamps in payloads are ISO strings or microseconds. */
export const payloadTime = (value: unknown): string | undefined => {
  if (typeof value === "string") return /^\d+$/.test(value) ? new Date(Number(value) / 1000).toISOString() : value
  if (typeof value === "number") return new Date(value / 1000).toISOString()
  return undefined
}

export const freshId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
