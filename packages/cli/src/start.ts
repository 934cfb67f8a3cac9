/**
 * `sandnet start`: one super validator, one validator and one synchronizer on the live clock, all
 * four surfaces on one port. Prints the base URLs, the operator's party and how to get a token.
 *
 * Storage: the embedded PGlite under `./.sandnet` by default (`--data-dir`), a PostgreSQL server
 * with `--database-url` (or `DATABASE_URL`) in the schema `--schema` (default: from the node
 * name), or nothing with `--in-memory`. A node whose store holds journals resumes from them.
 */

import { Admin } from "@sandnet/engine"
import { LedgerApiConfig, LOCALNET_USER, localNetPorts, makeDevToken, NodeReadRoutes, NodeRoutes, baseUrl, serve, serveLocalNet, StorageRoutes } from "@sandnet/http/serve"
import { localNetLines } from "./localnet.ts"
import {
  clusterNodeRuntimeLayer,
  clusterNodeSchema,
  historySpillDirOf,
  NodeRuntime,
  type NodeRuntimeService,
  NodeStorage,
  StorageInfo,
  nodeScheduler,
  nodeStorageLayerWith,
  persistentNodeRuntimeLayer,
  schemaForNode,
  servingWalletConfig,
  storageLayer,
  storedUserManagementLayer,
  type StorageChoice
} from "@sandnet/node"
import { DEFAULT_DATA_DIR } from "@sandnet/store"
import { Console, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { UsageError } from "./failure.ts"
import { probePorts } from "./port-probe.ts"
import { oneLineLogging } from "./request-log.ts"

export interface StorageOptions {
  readonly dataDir: Option.Option<string>
  readonly inMemory: boolean
  readonly databaseUrl: Option.Option<string>
  readonly schema: Option.Option<string>
  readonly nodeName: string
}

export interface StartOptions extends StorageOptions {
  readonly port: number
  readonly host: string
  readonly secret: string
  readonly validatorWalletUser: string
  /** One log line per HTTP request (off by default: it costs more than a simple read). */
  readonly logRequests?: boolean
  /**
   * Join a network spread over processes: the cluster's schema on the `--database-url` server;
   * `nodeName` is this process's node (sv1, validator2, ...). docs/storage.md.
   */
  readonly cluster?: Option.Option<string>
  /** The network's shape, on sv1's process (it decides; cluster/shape.ts). */
  readonly superValidators?: number | undefined
  readonly validators?: number | undefined
  /** LocalNet's layout and upstream names (packages/http/src/localnet), shifted by `portOffset`. */
  readonly localnet?: boolean
  readonly portOffset?: number
  /** Seconds a command's completion is awaited before the answer says its outcome is unknown (LedgerApiSettings; 60). */
  readonly completionTimeout?: number | undefined
  /** Journal entries between two engine checkpoints, at least (node checkpoint/record.ts; 0: none), as given. */
  readonly checkpointEvery?: string | undefined
  /** Called once the node serves and its ready lines are printed (bin/script-cached.mjs writes its code cache then). */
  readonly onReady?: (() => void) | undefined
}

/** The options of a node of a cluster, or a message saying what is wrong with them. */
const clusterOf = (options: StartOptions): { readonly cluster: string; readonly url: string } | string | undefined => {
  const cluster = options.cluster === undefined ? undefined : Option.getOrUndefined(options.cluster)
  if (cluster === undefined) return undefined
  const url = Option.getOrUndefined(options.databaseUrl) ?? process.env["DATABASE_URL"]
  if (options.inMemory || url === undefined || url === "") return "--cluster needs a PostgreSQL server (--database-url or DATABASE_URL): the processes meet there"
  if (Option.isSome(options.schema)) return "--cluster names the node schemas itself (<cluster>_<node-name>): leave out --schema"
  return { cluster, url }
}

/**
 * Which store the options pick: --in-memory, --database-url or --data-dir as given (one of them:
 * `storageConflict`), else DATABASE_URL from the environment, else PGlite in ./.sandnet. A flag
 * beats the environment: `--data-dir` on a machine that exports DATABASE_URL opens that directory.
 */
export const storageChoice = (options: StorageOptions): StorageChoice => {
  if (options.inMemory) return { _tag: "memory" }
  const url = Option.getOrUndefined(options.databaseUrl) ?? (Option.isSome(options.dataDir) ? undefined : process.env["DATABASE_URL"])
  if (url !== undefined && url !== "") {
    return { _tag: "postgres", url, schema: Option.getOrElse(options.schema, () => schemaForNode(options.nodeName)) }
  }
  return { _tag: "pglite", dataDir: Option.getOrElse(options.dataDir, () => DEFAULT_DATA_DIR) }
}

/**
 * Storage flags given together that pick different stores (or a schema for a store that has none),
 * as the message that refuses them; undefined when they agree. Taking one silently would run a node
 * on a store its user did not mean (a throwaway node for a kept one, or the other way round).
 */
const storageConflict = (options: StorageOptions): string | undefined => {
  const given = [
    ...(options.inMemory ? ["--in-memory"] : []),
    ...(Option.isSome(options.dataDir) ? ["--data-dir"] : []),
    ...(Option.isSome(options.databaseUrl) ? ["--database-url"] : [])
  ]
  if (given.length > 1) return `${given.join(" and ")} pick different stores: give one of them`
  if (Option.isSome(options.schema) && storageChoice(options)._tag !== "postgres") {
    return "--schema names the node's PostgreSQL schema: it goes with --database-url (or DATABASE_URL), not with the embedded or in-memory store"
  }
  return undefined
}

/** Refuses storage flags that pick different stores (`storageConflict`) before anything is opened: start, rebuild, snapshot, restore. */
export const agreeingStorage = (options: StorageOptions): Effect.Effect<void, UsageError> => {
  const conflict = storageConflict(options)
  return conflict === undefined ? Effect.void : Effect.fail(new UsageError({ message: conflict }))
}

/**
 * Why the data directory cannot hold the embedded database, or undefined when it can: it must be
 * a writable directory, or not exist under a writable directory (the store creates it).
 */
const statOrUndefined = (file: string): fs.Stats | undefined => {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })
  } catch {
    // ENOTDIR: a component is a file, found by the caller's walk up
    return undefined
  }
}

export const dataDirProblem = (dir: string): string | undefined => {
  const advice = "choose another with --data-dir"
  let current = path.resolve(dir)
  for (;;) {
    const stat = statOrUndefined(current)
    if (stat !== undefined) {
      if (!stat.isDirectory()) return current === path.resolve(dir) ? `the data directory ${dir} is a file: ${advice}` : `the data directory ${dir} is under a file (${current}): ${advice}`
      try {
        fs.accessSync(current, fs.constants.W_OK)
        return undefined
      } catch {
        return `the data directory ${dir} is not writable (${current}): ${advice}, or change the permissions`
      }
    }
    const parent = path.dirname(current)
    if (parent === current) return undefined
    current = parent
  }
}

/** The dev users (the operator's wallet user, participant_admin, any created since), a token each. */
const devUsers = (secret: string) =>
  Effect.gen(function* () {
    const users = yield* Admin.UserManagement
    const page = yield* Effect.orElseSucceed(users.listUsers({ pageSize: 20 }), () => ({ users: [], nextPageToken: "" }))
    const width = Math.max(...page.users.map((u) => u.id.length), 8) + 2
    const lines: Array<string> = []
    for (const user of page.users) {
      const token = yield* makeDevToken({ user: user.id, secret })
      lines.push(`  ${user.id.padEnd(width)}${user.primaryParty === undefined || user.primaryParty === "" ? "no primary party" : `party ${user.primaryParty}`}`)
      lines.push(`  ${"".padEnd(width)}token ${token}`)
    }
    return [
      `dev users (tokens for the secret ${secret === "unsafe" ? '"unsafe"' : "given"}; another with: sandnet token --user <id>${secret === "unsafe" ? "" : " --secret <secret>"})`,
      ...lines,
      ...(page.nextPageToken === "" ? [] : ["  ... (more: GET /v2/users)"])
    ]
  })

/** Creates the validator operator's wallet user (admin rights, acting as the operator party). */
const ensureOperatorUser = (user: string, node: string | undefined) =>
  Effect.gen(function* () {
    const runtime = yield* NodeRuntime
    const users = yield* Admin.UserManagement
    const engine = yield* runtime.engine
    const nodes = [...engine.network.validators, ...engine.network.superValidators]
    const operator = (node === undefined ? engine.network.validators[0]! : nodes.find((n) => n.name === node)!).operator
    const existing = yield* Effect.either(users.getUser(user))
    if (existing._tag === "Left") {
      yield* users.createUser({
        user: { id: user, primaryParty: operator },
        rights: [Admin.Rights.canActAs(operator), Admin.Rights.canReadAs(operator), Admin.Rights.participantAdmin]
      }).pipe(Effect.catchAll(() => Effect.void))
    }
    return operator
  })

/**
 * SIGTERM and SIGINT stop the work at once (a time advance after its step; requests answered 503
 * NODE_SHUTTING_DOWN), before the scope closes the listener and the runtime flushes what was
 * acknowledged (the runtime's main fiber is interrupted by the same signal).
 */
const stopWorkOnSignals = (runtime: NodeRuntimeService): void => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => Effect.runSync(runtime.beginShutdown))
}

/** The node's routes on one port, or in LocalNet's layout with `--localnet`. */
const served = (options: StartOptions) => {
  const routes = Layer.mergeAll(NodeRoutes, StorageRoutes)
  return options.localnet === true
    ? serveLocalNet(routes, { portOffset: options.portOffset ?? 0, host: options.host, logRequests: options.logRequests, reads: NodeReadRoutes })
    : serve(routes, { http: { port: options.port, host: options.host, logRequests: options.logRequests ?? false }, auth: { secret: options.secret }, reads: NodeReadRoutes })
}

/** The ledger surface's settings: a node of a cluster serves its own participant on /v2; --completion-timeout. */
const ledgerApiSettings = (options: StartOptions, inCluster: boolean) =>
  LedgerApiConfig.layer({
    ...(inCluster ? { participant: options.nodeName } : {}),
    ...(options.completionTimeout === undefined ? {} : { completionTimeoutMillis: options.completionTimeout * 1000 })
  })

const seconds = (ms: number) => (ms / 1000).toFixed(2)

/** The ports a start listens on: --port, or LocalNet's five shifted by --port-offset. */
const portsOf = (options: StartOptions): ReadonlyArray<number> =>
  options.localnet === true ? Object.values(localNetPorts(options.portOffset ?? 0)) : [options.port]

/** The node's storage options: indexes kept unless in memory; with --checkpoint-every 0, no checkpoint read (the journals replayed whole). */
const storageOptionsOf = (options: StartOptions, choice: StorageChoice) => ({
  keepsIndexes: choice._tag !== "memory",
  fromCheckpoint: options.checkpointEvery === undefined || checkpointEveryOf(options.checkpointEvery) !== 0
})

/** The serving node's runtime: wallets and automations on, history spilled beside the store, --checkpoint-every. */
const runtimeOptionsOf = (options: StartOptions, choice: StorageChoice) => ({
  wallets: true,
  automation: true,
  walletConfig: servingWalletConfig(options.validatorWalletUser),
  historySpillDir: historySpillDirOf(choice),
  ...(options.checkpointEvery === undefined ? {} : { checkpointEvery: checkpointEveryOf(options.checkpointEvery) })
})

/** `--checkpoint-every`'s entries, or undefined when it is not a whole number from 0 on. */
const checkpointEveryOf = (given: string): number | undefined => {
  const entries = /^[0-9]+$/.test(given.trim()) ? Number(given.trim()) : Number.NaN
  return Number.isSafeInteger(entries) ? entries : undefined
}

/** The store a start opens (and its cluster, if it joins one), or the usage error that refuses its flags. */
const storageOfStart = (options: StartOptions) =>
  Effect.gen(function* () {
    const refuse = (message: string) => Effect.fail(new UsageError({ message }))
    yield* agreeingStorage(options)
    const cluster = clusterOf(options)
    if (typeof cluster === "string") return yield* refuse(cluster)
    if (options.localnet === true && cluster !== undefined) return yield* refuse("--localnet runs one node with LocalNet's layout: leave out --cluster")
    if (options.checkpointEvery !== undefined && checkpointEveryOf(options.checkpointEvery) === undefined) {
      return yield* refuse(`--checkpoint-every takes a whole number of journal entries (0: no checkpoints), got ${options.checkpointEvery}`)
    }
    const choice: StorageChoice =
      cluster === undefined ? storageChoice(options) : { _tag: "postgres", url: cluster.url, schema: clusterNodeSchema(cluster.cluster, options.nodeName) }
    const problem = choice._tag === "pglite" ? dataDirProblem(choice.dataDir) : undefined
    if (problem !== undefined) return yield* refuse(problem)
    return { cluster, choice }
  })

export const start = (given: StartOptions) =>
  Effect.gen(function* () {
    const started = performance.now()
    const localnet = given.localnet === true
    // LocalNet's ledger and wallet user is ledger-api-user (the validator operator's).
    const options: StartOptions = localnet ? { ...given, validatorWalletUser: LOCALNET_USER } : given
    const { cluster, choice } = yield* storageOfStart(options)
    yield* probePorts(options.host, portsOf(options))
    const marks = { storage: started, engine: started }
    const store = storageLayer(choice)
    const storage = nodeStorageLayerWith(storageOptionsOf(options, choice)).pipe(
      Layer.provideMerge(store),
      Layer.tap(() => Effect.sync(() => void (marks.storage = performance.now())))
    )
    const runtimeOptions = runtimeOptionsOf(options, choice)
    const runtimeLayer =
      cluster === undefined
        ? persistentNodeRuntimeLayer(runtimeOptions)
        : clusterNodeRuntimeLayer(runtimeOptions, {
            url: cluster.url,
            cluster: cluster.cluster,
            node: options.nodeName,
            superValidators: options.superValidators,
            validators: options.validators
          })
    const runtime = runtimeLayer.pipe(
      Layer.provideMerge(storage),
      Layer.tap(() => Effect.sync(() => void (marks.engine = performance.now())))
    )
    const users = storedUserManagementLayer().pipe(Layer.provide(storage))
    const layer = served(options).pipe(
      Layer.provideMerge(users),
      Layer.provideMerge(runtime),
      Layer.provideMerge(ledgerApiSettings(options, cluster !== undefined))
    )
    return yield* Effect.gen(function* () {
      const operator = yield* ensureOperatorUser(options.validatorWalletUser, cluster === undefined ? undefined : options.nodeName)
      const url = yield* baseUrl
      const runtime = yield* NodeRuntime
      stopWorkOnSignals(runtime)
      const engine = yield* runtime.engine
      const network = engine.network
      const info = yield* StorageInfo
      const stored = yield* NodeStorage
      const resumed = stored.initial.entryCount
      const from = stored.startedFrom()
      const followed = from.checkpointFollowed === undefined ? "" : ` (and of ${from.checkpointFollowed} entries of the other nodes' journals)`
      const fromCheckpoint = from.checkpointOrdinal === undefined ? "" : `from the checkpoint of entry ${from.checkpointOrdinal}${followed}, then `
      const lines = [
        `Sandnet node ready in ${seconds(performance.now() - started)} s (storage ${seconds(marks.storage - started)} s, engine ${seconds(marks.engine - marks.storage)} s)`,
        `  network    ${network.superValidators.length} super validator, ${network.validators.length} validator, ${network.synchronizers.length} synchronizer (${network.synchronizers[0]!.info.synchronizerId})`,
        `  storage    ${info.text}`,
        ...(cluster === undefined
          ? []
          : [`  cluster    node ${options.nodeName} of the network in schema ${cluster.cluster}${engine.cluster?.hostsSynchronizers === true ? " (runs the synchronizers)" : ""}`]),
        `  state      ${resumed === 0 ? "a fresh network (genesis)" : `resumed: ${fromCheckpoint}${from.replayCount} journal entries replayed, ledger end ${(cluster === undefined ? network.validators[0] : [...network.validators, ...network.superValidators].find((n) => n.name === options.nodeName))?.participant.logic.ledgerEnd ?? 0}`}`,
        ...(localnet
          ? localNetLines(options.portOffset ?? 0)
          : [`  scan       ${url}/api/scan`, `  wallet     ${url}/api/validator`, `  registry   ${url}/registry`, `  ledger     ${url}/v2`, `  docs       ${url}/docs`]),
        `operator party (wallet user "${options.validatorWalletUser}"): ${operator}`,
        ...(yield* devUsers(options.secret))
      ]
      yield* Console.log(lines.join("\n"))
      options.onReady?.()
      return yield* Effect.never
    }).pipe(Effect.provide(layer), Effect.provide(options.logRequests === true ? oneLineLogging : Layer.empty), Effect.withScheduler(nodeScheduler))
  })
