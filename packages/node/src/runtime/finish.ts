/**
 * Finishing an engine instance: its wallets and automations start from the ledger state, once
 * genesis is there (at once in one process; in a cluster once genesis arrived).
 */
import { invariant } from "@sandnet/core"
import { dsoReference, makeWallet, makeWalletApi, startDsoAutomation, type DsoAutomation, type WalletApi, type WalletCheckpoint, type WalletEvent } from "@sandnet/engine"
import { Effect } from "effect"
import { walletSinkOf } from "../journal/capture.ts"
import { JournalReplayFailed } from "../journal/errors.ts"
import type { RuntimeContext } from "./context.ts"
import type { EngineInstance } from "./service.ts"

/**
 * Wallets and automations start from the ledger state, once genesis is there: into `started`. A
 * wallet checkpoint that does not fit its wallet (an engine invariant fails while it is restored)
 * fails the start as the ledger's would: the runtime gives the checkpoint up and replays the
 * journals whole (runtime.ts).
 */
export const finishEngine = (
  ctx: RuntimeContext,
  instance: EngineInstance,
  started: { readonly wallets: Array<WalletApi>; readonly dsoAutomations: Array<DsoAutomation> },
  walletJournals: ReadonlyMap<string, ReadonlyArray<WalletEvent>>,
  walletCheckpoints: ReadonlyMap<string, WalletCheckpoint>
): Effect.Effect<void, JournalReplayFailed> =>
  Effect.gen(function* () {
    const { options, storage } = ctx
    const { network, clock, provide, cluster } = instance
    invariant(dsoReference(network, clock.now) !== undefined, "the genesis transaction must be committed at start")
    if (options.wallets === true) {
      for (const v of network.validators.filter((v) => cluster === undefined || cluster.isLocalNode(v.name))) {
        const checkpoint = walletCheckpoints.get(v.name)
        const making = provide(makeWallet(network, v, {
          journal: walletJournals.get(v.name) ?? [],
          ...(checkpoint === undefined ? {} : { checkpoint }),
          automation: options.automation === true,
          ...(options.walletConfig === undefined ? {} : { config: options.walletConfig })
        }))
        const { node, automation } = yield* checkpoint === undefined ? making : Effect.catchAllDefect(making, (defect) => new JournalReplayFailed({ message: `the wallet checkpoint of ${v.name} does not fit: ${defect instanceof Error ? defect.message : String(defect)}` }))
        if (storage !== undefined) node.journalSink = walletSinkOf(storage.engine, v.name)
        started.wallets.push(makeWalletApi(node, ctx.catchUp(instance), automation))
      }
    }
    if (options.automation === true) {
      started.dsoAutomations.push(...(yield* provide(startDsoAutomation(network, {}, cluster === undefined ? undefined : (sv) => cluster.isLocalNode(sv.name)))))
    }
  })
