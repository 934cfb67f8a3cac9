/**
 * Identity provider configuration of the ledger API (POST /v2/idps and its update / delete).
 *
 *   active --update(isDeactivated: true)--> deactivated --update(isDeactivated: false)--> active
 *   active | deactivated --delete--> deleted (final)
 *
 * An update that leaves isDeactivated as it is (or omits it) changes only the other fields and
 * stays in the same state; it is still accepted. Tokens of a provider that is deactivated or
 * deleted are denied (`deniesAccess`).
 *
 * The machine always starts active: xstate v5 has no input-dependent initial state, so a
 * configuration created with isDeactivated goes through `startIdentityProvider`, which applies
 * the deactivating update right away.
 *
 * User management steps it (admin/decide.ts, through admin/idp-lifecycle.ts): a stored
 * configuration is its state and context.
 */
import { invariant } from "@sandnet/core"
import { Schema } from "effect"
import { assign, setup, type SnapshotFrom } from "xstate"
import { inertContext, start, step } from "./lifecycle.ts"

export const IdentityProviderContext = Schema.Struct({
  identityProviderId: Schema.String,
  /** https issuer that tokens of this provider must carry. */
  issuer: Schema.String,
  /** Where the RS256 verification keys are published. */
  jwksUrl: Schema.String,
  /** Required `aud` entry; "" means no audience check, as in the ledger API. */
  audience: Schema.String
})
export type IdentityProviderContext = typeof IdentityProviderContext.Type

export interface IdentityProviderInput {
  readonly identityProviderId: string
  readonly issuer: string
  readonly jwksUrl: string
  readonly audience: string
}

/** The fields an update may set; absent fields keep their value (the ledger API's update mask). */
export interface IdentityProviderUpdate {
  readonly isDeactivated?: boolean
  readonly issuer?: string
  readonly jwksUrl?: string
  readonly audience?: string
}

export type IdentityProviderEvent =
  | ({ readonly type: "update" } & IdentityProviderUpdate)
  | { readonly type: "delete" }

export const IDENTITY_PROVIDER_STATES = ["active", "deactivated", "deleted"] as const
export type IdentityProviderState = (typeof IDENTITY_PROVIDER_STATES)[number]

const updateOf = ({ event }: { readonly event: IdentityProviderEvent }): IdentityProviderUpdate =>
  event.type === "update" ? event : {}

export const identityProviderMachine = setup({
  types: {
    context: {} as IdentityProviderContext,
    events: {} as IdentityProviderEvent,
    input: {} as IdentityProviderInput
  },
  schemas: { context: IdentityProviderContext },
  guards: {
    deactivates: (_, update: IdentityProviderUpdate) => update.isDeactivated === true,
    reactivates: (_, update: IdentityProviderUpdate) => update.isDeactivated === false
  },
  actions: {
    applyUpdate: assign(({ context }, update: IdentityProviderUpdate) => ({
      issuer: update.issuer ?? context.issuer,
      jwksUrl: update.jwksUrl ?? context.jwksUrl,
      audience: update.audience ?? context.audience
    }))
  }
}).createMachine({
  id: "identityProvider",
  version: "1",
  initial: "active",
  context: ({ input }) => {
    if (input === undefined) return inertContext<IdentityProviderContext>()
    invariant(input.identityProviderId.length > 0, "an identity provider has an id")
    // Pick the fields: the context is stored, so nothing else the caller passed may ride along.
    const { identityProviderId, issuer, jwksUrl, audience } = input
    return { identityProviderId, issuer, jwksUrl, audience }
  },
  states: {
    active: {
      on: {
        update: [
          { target: "deactivated", guard: { type: "deactivates", params: updateOf }, actions: { type: "applyUpdate", params: updateOf } },
          { actions: { type: "applyUpdate", params: updateOf } }
        ],
        delete: { target: "deleted" }
      }
    },
    deactivated: {
      on: {
        update: [
          { target: "active", guard: { type: "reactivates", params: updateOf }, actions: { type: "applyUpdate", params: updateOf } },
          { actions: { type: "applyUpdate", params: updateOf } }
        ],
        delete: { target: "deleted" }
      }
    },
    deleted: { type: "final" }
  }
})

/** The snapshot of a newly created configuration (POST /v2/idps), possibly already deactivated. */
export const startIdentityProvider = (
  input: IdentityProviderInput & { readonly isDeactivated: boolean }
): SnapshotFrom<typeof identityProviderMachine> => {
  const { isDeactivated, ...config } = input
  const created = start(identityProviderMachine, config)
  if (!isDeactivated) return created
  const result = step(identityProviderMachine, created, { type: "update", isDeactivated: true })
  invariant(result.accepted, "a new identity provider configuration can be deactivated")
  return result.snapshot
}

/** Whether tokens issued by this provider must be denied. */
export const deniesAccess = (snapshot: SnapshotFrom<typeof identityProviderMachine>): boolean =>
  snapshot.value !== "active"
