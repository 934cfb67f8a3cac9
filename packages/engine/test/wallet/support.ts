/** An economy on the test harness: DSO automation on every SV and a wallet (with automations) per validator. */
import { Effect } from "effect"
import {
  decodeWalletConfig,
  makeWallet,
  makeWalletApi,
  startDsoAutomation,
  type CoinNetworkConfig,
  type LinkModel,
  type NetworkKeeping,
  type DsoAutomation,
  type WalletApi,
  type WalletConfigInput
} from "../../src/index.ts"
import { makeHarness, type Harness } from "../support.ts"
import { Either } from "effect"

export interface Economy extends Harness {
  readonly dso: ReadonlyArray<DsoAutomation>
  readonly wallets: ReadonlyArray<WalletApi>
  /** Delivers what is due now (what the node runtime does after an operation). */
  readonly settle: Effect.Effect<void>
  /** Moves time forward by `by` microseconds, delivering everything due on the way. */
  readonly advance: (by: number) => Effect.Effect<void>
}

export const makeEconomy = (
  overrides: Partial<CoinNetworkConfig> = {},
  walletConfig: (validatorIndex: number) => WalletConfigInput = () => ({}),
  options: { readonly automation?: boolean; readonly link?: LinkModel; readonly keeping?: NetworkKeeping } = {}
): Effect.Effect<Economy, unknown> =>
  Effect.gen(function* () {
    const h = yield* makeHarness({ superValidators: 1, validators: 2, ...overrides }, options.link, undefined, options.keeping)
    const settle = Effect.asVoid(Effect.suspend(() => h.driver.runUntil(h.clock.now)))
    const dso = yield* h.run(startDsoAutomation(h.network))
    const wallets: Array<WalletApi> = []
    for (const [i, validator] of h.network.validators.entries()) {
      const config = Either.getOrThrow(decodeWalletConfig(walletConfig(i)))
      const { node, automation } = yield* h.run(makeWallet(h.network, validator, { config, automation: options.automation ?? true }))
      wallets.push(makeWalletApi(node, settle, automation))
    }
    yield* settle
    const advance = (by: number) => Effect.asVoid(Effect.suspend(() => h.driver.runUntil(h.clock.now + by)))
    return { ...h, dso, wallets, settle, advance }
  })

/** Runs a wallet operation on the harness's clock. */
export const op = <A, E>(e: Economy, effect: Effect.Effect<A, E>): Effect.Effect<A, E> => Effect.withClock(effect, e.clock)

/** A link that drops submissions to sequencers while `dropping()` says so (a partitioned validator). */
export const switchableLink = (dropping: () => boolean): LinkModel => ({
  route: (_from, to, _message, now) => (dropping() && to.startsWith("SEQ::") ? [] : [now])
})
