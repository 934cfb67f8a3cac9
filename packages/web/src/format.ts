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

/** What the wallet's history calls the transactions a user made or saw, by the choice that made them. */
const CHOICE_KINDS: Readonly<Record<string, string>> = {
  AcceptedTransferOffer_Complete: "Transfer offer paid",
  TransferPreapproval_Send: "One-step transfer",
  TransferFactory_Transfer: "Token-standard transfer",
  TransferInstruction_Accept: "Token-standard transfer accepted",
  CoinRules_BuyMemberTraffic: "Traffic purchase",
  BuyTrafficRequest_Complete: "Traffic purchase",
  CoinRules_CreateTransferPreapproval: "Preapproval created",
  TransferPreapproval_Renew: "Preapproval renewed",
  BatchMergeUtility_MergeHoldings: "Holdings merged",
  MergeDelegation_Merge: "Holdings merged",
  MintingDelegation_Mint: "Rewards minted",
  CoinRules_Transfer: "Transfer",
  TransferOffer_Reject: "Offer rejected",
  TransferOffer_Withdraw: "Offer withdrawn",
  TransferOffer_Expire: "Offer expired",
  AcceptedTransferOffer_Abort: "Accepted offer aborted",
  AcceptedTransferOffer_Withdraw: "Accepted offer withdrawn",
  AcceptedTransferOffer_Expire: "Accepted offer expired",
  TransferInstruction_Reject: "Token-standard transfer rejected",
  TransferInstruction_Withdraw: "Token-standard transfer withdrawn",
  CoinTransferInstruction_Expire: "Token-standard transfer expired",
  BuyTrafficRequest_Cancel: "Traffic purchase refused",
  BuyTrafficRequest_Expire: "Traffic purchase expired"
}

const OPERATION_KINDS: Readonly<Record<string, string>> = { tap: "Tap", "dust expiry": "Dust expired", transfer: "Transfer" }

/** `TransferOffer_Reject` -> `Transfer offer reject`: a readable fallback for choices without a name here. */
const humanize = (choice: string): string => {
  const words = choice.replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export const historyKind = (subtype: { readonly choice: string; readonly coin_operation?: string; readonly amulet_operation?: string }): string => {
  const operation = subtype.coin_operation ?? subtype.amulet_operation
  return (operation === undefined ? undefined : OPERATION_KINDS[operation]) ?? CHOICE_KINDS[subtype.choice] ?? humanize(subtype.choice)
}

/** The change a history item made to `party`'s balance ("-10.5", "3"), undefined when it made none. */
export const changeFor = (
  party: string,
  item: { readonly sender?: { readonly party: string; readonly amount: string }; readonly receivers?: ReadonlyArray<{ readonly party: string; readonly amount: string }> }
): string | undefined => {
  const parts = [...(item.sender?.party === party ? [item.sender.amount] : []), ...(item.receivers ?? []).filter((r) => r.party === party).map((r) => r.amount)]
  if (parts.length === 0) return undefined
  // Sum exact decimals as integers of 10^-10 (the ledger's precision).
  const scaled = parts.reduce((sum, a) => sum + toScaled(a), 0n)
  return fromScaled(scaled)
}

const SCALE = 10n ** 10n

const toScaled = (amount: string): bigint => {
  const negative = amount.startsWith("-")
  const [whole = "0", fraction = ""] = (negative ? amount.slice(1) : amount).split(".")
  const value = BigInt(whole === "" ? "0" : whole) * SCALE + BigInt((fraction + "0000000000").slice(0, 10))
  return negative ? -value : value
}

const fromScaled = (value: bigint): string => {
  const negative = value < 0n
  const abs = negative ? -value : value
  return `${negative ? "-" : ""}${abs / SCALE}.${(abs % SCALE).toString().padStart(10, "0")}`
}
