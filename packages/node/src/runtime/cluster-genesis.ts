/**
 * Genesis in a network spread over processes: genesis runs in the first super validator's
 * process (with the other super validators' confirmations); every process is ready once genesis
 * is in its ledger state, and only then starts its wallets and automations.
 */
import type { Micros } from "@sandnet/core"
import { dsoReference, submitGenesisTransaction, type CoinNetwork, type ManualClock } from "@sandnet/engine"
import { Effect } from "effect"
import type { ClusterLink } from "../cluster/link.ts"
import type { Locked } from "./lock.ts"
import type { NodeRuntimeService } from "./service.ts"

/** How long a process of a cluster waits for the first super validator's process to commit genesis. */
const GENESIS_WAIT = { attempts: 1200, every: "100 millis" } as const

/**
 * A node of a cluster is ready once genesis is in its ledger state: the ticker brings it in
 * (and, in the first super validator's process, the other super validators' confirmations; a
 * rejected genesis transaction is submitted again). Then `finish` starts wallets and automations.
 */
export const awaitClusterGenesis = (cluster: ClusterLink, locked: Locked, run: NodeRuntimeService["run"], finish: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.gen(function* () {
    let genesisCommand = "genesis"
    for (let attempt = 1; ; attempt++) {
      const state = yield* locked((engine) =>
        Effect.sync(() => {
          if (dsoReference(engine.network, engine.clock.now) !== undefined) return "ready" as const
          const sv1 = engine.network.superValidators[0]!
          return cluster.hostsSynchronizers && sv1.participant.logic.completionOf(genesisCommand, [engine.network.dso])?._tag === "Failed" ? ("rejected" as const) : ("waiting" as const)
        })
      )
      if (state === "ready") break
      if (state === "rejected") {
        yield* Effect.logWarning(`the genesis transaction (${genesisCommand}) was rejected: are the other super validators' processes up? Submitting it again`)
        genesisCommand = `genesis-${attempt}`
        const command = genesisCommand
        yield* run((engine) => Effect.orDie(submitGenesisTransaction(engine.network, command)))
      }
      if (attempt === GENESIS_WAIT.attempts) {
        return yield* Effect.dieMessage(`the network's genesis did not arrive in 120 s: start ${cluster.synchronizerHost}'s process and every super validator's`)
      }
      if (attempt % 50 === 0) yield* Effect.logInfo(cluster.hostsSynchronizers ? "waiting for the super validators to confirm the network's genesis" : `waiting for ${cluster.synchronizerHost}'s process to commit the network's genesis`)
      yield* Effect.sleep(GENESIS_WAIT.every)
    }
    yield* locked(() => finish)
  })

/**
 * Follows the other nodes' journals until this process's copy of the DSO's contracts holds genesis
 * with a round open by now (the engine's clock follows the live one meanwhile: genesis may be
 * younger than this process).
 */
export const awaitGenesis = (cluster: ClusterLink, network: CoinNetwork, clock: ManualClock, now: Effect.Effect<Micros>): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (let attempt = 0; ; attempt++) {
      yield* Effect.catchAll(cluster.follow, (error) => Effect.logWarning("the cluster's journals could not be read; retrying", error instanceof Error ? error.message : String(error)))
      const time = yield* now
      if (time > clock.now) clock.advanceTo(time)
      if (dsoReference(network, clock.now) !== undefined) return
      if (attempt === GENESIS_WAIT.attempts) {
        return yield* Effect.dieMessage(`the network's genesis was not found in ${cluster.synchronizerHost}'s journal after 120 s: start that node's process`)
      }
      if (attempt % 50 === 49) yield* Effect.logInfo(`waiting for ${cluster.synchronizerHost}'s process to commit the network's genesis`)
      yield* Effect.sleep(GENESIS_WAIT.every)
    }
  })
