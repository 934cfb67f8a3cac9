/**
 * An identity provider configuration and its lifecycle (machines/identity-provider.ts): a stored
 * configuration is the machine's state (active or deactivated) and context, so user management
 * rebuilds the lifecycle from it, steps it for each change, and stores the configuration it ends in.
 */
import { invariant } from "@sandnet/core"
import type { SnapshotFrom } from "xstate"
import { identityProviderMachine, startIdentityProvider, type IdentityProviderEvent } from "../machines/identity-provider.ts"
import { contextOf, stateOf, step } from "../machines/lifecycle.ts"
import type { IdentityProviderConfig } from "./model.ts"

type Lifecycle = SnapshotFrom<typeof identityProviderMachine>

/** The lifecycle a configuration is in. */
export const lifecycleOf = (config: IdentityProviderConfig): Lifecycle =>
  startIdentityProvider({
    identityProviderId: config.identityProviderId,
    issuer: config.issuer,
    jwksUrl: config.jwksUrl,
    audience: config.audience ?? "",
    isDeactivated: config.isDeactivated
  })

/** The configuration a lifecycle stands for ("" audience: none). */
export const configOf = (lifecycle: Lifecycle): IdentityProviderConfig => {
  const { identityProviderId, issuer, jwksUrl, audience } = contextOf<typeof identityProviderMachine>(lifecycle)
  return { identityProviderId, isDeactivated: stateOf<typeof identityProviderMachine>(lifecycle) === "deactivated", issuer, jwksUrl, ...(audience !== "" ? { audience } : {}) }
}

/** Steps a configuration's lifecycle; user management only asks for steps its states take. */
export const stepIdentityProvider = (config: IdentityProviderConfig, event: IdentityProviderEvent): Lifecycle => {
  const result = step(identityProviderMachine, lifecycleOf(config), event)
  invariant(result.accepted, () => `identity provider ${config.identityProviderId}: ${event.type} refused in its lifecycle`)
  return result.snapshot
}
