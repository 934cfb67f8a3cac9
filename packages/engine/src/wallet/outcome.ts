/**
 * What a wallet command answers. Commands never wait: each returns a `Pending` (the command id it
 * submitted and how to read its outcome) as soon as the participant accepted the submission, or
 * the reply at once when no command was needed. The Effect service (service.ts) waits for the
 * outcome; simulations and automations react to completions instead.
 */
import type { Either } from "effect"
import type { PartyId } from "@sandnet/core"
import type { Completion } from "../participant/index.ts"
import type { WalletError } from "./errors.ts"

/** A submitted command and how to turn its completion into the operation's reply. */
export interface Pending<A> {
  readonly commandId: string
  readonly actAs: ReadonlyArray<PartyId>
  readonly finish: (completion: Completion) => Either.Either<A, WalletError>
}

/** A reply that needed no command. */
export type Outcome<A> = { readonly _tag: "Done"; readonly value: A } | { readonly _tag: "Submitted"; readonly pending: Pending<A> }

export const done = <A>(value: A): Outcome<A> => ({ _tag: "Done", value })
export const submitted = <A>(pending: Pending<A>): Outcome<A> => ({ _tag: "Submitted", pending })
