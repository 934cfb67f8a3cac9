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
  type WalletConfigInput,
  type WalletEvent
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

/**
 * An economy where alice (on the first validator, `tap` coin tapped) and bob (on the second) are
 * onboarded, the first wallet's journal events collected from the start.
 */
export const journaledEconomy = (options: { readonly tap?: string; readonly keeping?: NetworkKeeping } = {}) =>
  Effect.gen(function* () {
    const e = yield* makeEconomy({}, () => ({}), options.keeping === undefined ? {} : { keeping: options.keeping })
    const [w1, w2] = e.wallets
    const journal: Array<WalletEvent> = []
    w1!.node.journalSink = (event) => void journal.push(event)
    const alice = yield* op(e, w1!.onboardUser({ name: "alice" }))
    const bob = yield* op(e, w2!.onboardUser({ name: "bob" }))
    yield* op(e, w1!.tap("alice", { amount: options.tap ?? "100" }))
    return { e, w1: w1!, w2: w2!, journal, alice, bob }
  })

/** A link that drops submissions to sequencers while `dropping()` says so (a partitioned validator). */
export const switchableLink = (dropping: () => boolean): LinkModel => ({
  route: (_from, to, _message, now) => (dropping() && to.startsWith("SEQ::") ? [] : [now])
})
