/**
 * The expiry rule of offers, accepted offers, transfer instructions and buy-traffic requests: one
 * is open strictly before its expiry and expired from it on, in ledger time. The contracts check it
 * (offers.ts, instruction.ts), their lifecycle machines guard on it (machines/), and the wallet
 * and its automations ask it (through the machines) before they submit.
 */
import { parseIso, type Micros } from "@sandnet/core"

/** Whether something expiring at `expiresAt` is expired at `ledgerTime`. */
export const isExpired = (expiresAt: Micros, ledgerTime: Micros): boolean => ledgerTime >= expiresAt

/** An expiry as a contract stores it (ISO 8601), in microseconds; one that does not parse is long past. */
export const expiryOf = (iso: string): Micros => parseIso(iso) ?? 0
