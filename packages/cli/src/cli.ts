/**
 * The commands' options for @effect/cli. What a command does is imported when it runs (its own
 * chunk of the bundle, see bin/build.mjs), so that starting one command does not compile the
 * others' code. A failure ends with one line (failure.ts).
 */
import { Args, Command, Options } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Option } from "effect"
import { existsSync } from "node:fs"
import { BENCH_SECTIONS } from "./bench/sections.ts"
import { describeFailure, UsageError } from "./failure.ts"
import { portOf } from "./port.ts"

/** Runs `run` of a module imported when the command runs. */
const lazy = <M, A, E, R>(load: () => Promise<M>, run: (module: M) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    Effect.promise(() => load()),
    run
  )

const scenarioFile = Args.text({ name: "FILE" }).pipe(Args.optional)

/** A file the user names must exist; the line says what it should have been. */
const mustExist = (file: Option.Option<string>, what: string): Effect.Effect<void, UsageError> =>
  Option.isSome(file) && !existsSync(file.value) ? Effect.fail(new UsageError({ message: `${file.value}: no such file (${what})` })) : Effect.void

/** --url, else SANDNET_URL, else the default node's. */
const urlOf = (option: Option.Option<string>): string => Option.getOrElse(option, () => process.env["SANDNET_URL"] || "http://127.0.0.1:7575")

const simulate = Command.make(
  "simulate",
  {
    file: scenarioFile,
    seed: Options.integer("seed").pipe(Options.optional),
    seeds: Options.text("seeds").pipe(Options.optional),
    jobs: Options.integer("jobs").pipe(Options.withDefault(1)),
    until: Options.integer("until").pipe(Options.optional),
    replay: Options.text("replay").pipe(Options.optional),
    report: Options.text("report").pipe(Options.optional),
    traceDir: Options.text("trace-dir").pipe(Options.withDefault(".sandnet/traces")),
    keepTrace: Options.boolean("keep-trace"),
    quiet: Options.boolean("quiet")
  },
  (options) =>
    Effect.zipRight(
      Effect.zipRight(
        mustExist(options.file, "a scenario is a YAML file, e.g. scenarios/smoke.yaml"),
        mustExist(options.replay, "a failed run leaves its trace in --trace-dir, .sandnet/traces by default")
      ),
      // a swarm's worker processes are this command with SANDNET_SIMULATE_WORKER set (simulate.ts)
      lazy(() => import("./simulate.ts"), (m) => m.simulateCommand({ ...options, worker: process.env["SANDNET_SIMULATE_WORKER"] === "1" }))
    )
).pipe(
  Command.withDescription(
    "run a scenario on the deterministic simulator: one seed (summary, history hash), a swarm of seeds, the deliveries around a step, or the replay of a failure's trace"
  )
)

const storageOptions = {
  dataDir: Options.text("data-dir").pipe(Options.optional),
  inMemory: Options.boolean("in-memory"),
  databaseUrl: Options.text("database-url").pipe(
    Options.optional
  ),
  schema: Options.text("schema").pipe(Options.optional),
  nodeName: Options.text("node-name").pipe(Options.withDefault("sandnet"))
}

const startCommand = Command.make(
  "start",
  {
    // text, checked by portOf: its message says what a port is (Options.integer's: "'abc' is not a integer")
    port: Options.text("port").pipe(Options.optional),
    host: Options.text("host").pipe(Options.withDefault("127.0.0.1")),
    secret: Options.text("secret").pipe(Options.withDefault("unsafe")),
    validatorWalletUser: Options.text("validator-wallet-user").pipe(Options.withDefault("operator")),
    logRequests: Options.boolean("log-requests"),
    cluster: Options.text("cluster").pipe(
      Options.optional
    ),
    localnet: Options.boolean("localnet"),
    portOffset: Options.integer("port-offset").pipe(Options.withDefault(0)),
    superValidators: Options.integer("super-validators").pipe(Options.optional, Options.map(Option.getOrUndefined)),
    validators: Options.integer("validators").pipe(Options.optional, Options.map(Option.getOrUndefined)),
    completionTimeout: Options.integer("completion-timeout").pipe(Options.optional, Options.map(Option.getOrUndefined)),
    // text, checked by start: its message names the flag (Options.integer's does not)
    checkpointEvery: Options.text("checkpoint-every").pipe(Options.optional, Options.map(Option.getOrUndefined)),
    ...storageOptions
  },
  (options) => Effect.flatMap(portOf(options.port), (port) => lazy(() => import("./start.ts"), (m) => m.start({ ...options, port })))
).pipe(Command.withDescription("run a local node: 1 super validator, 1 validator, 1 synchronizer, all surfaces on one port"))

const tokenCommand = Command.make(
  "token",
  {
    user: Options.text("user"),
    secret: Options.text("secret").pipe(Options.withDefault("unsafe")),
    audience: Options.text("audience").pipe(Options.optional),
    expiresIn: Options.integer("expires-in").pipe(Options.optional)
  },
  ({ user, secret, audience, expiresIn }) =>
    lazy(
      () => import("./token-entry.ts"),
      (m) =>
        Effect.promise(() =>
          m.printToken({
            user,
            secret,
            ...(Option.isSome(audience) ? { audience: audience.value } : {}),
            ...(Option.isSome(expiresIn) ? { expiresInSeconds: expiresIn.value } : {})
          })
        )
    )
).pipe(Command.withDescription("print a dev token (HS256) for a user"))

const benchCommand = Command.make(
  "bench",
  {
    write: Options.text("write").pipe(Options.optional),
    only: Options.choice("only", BENCH_SECTIONS).pipe(Options.repeated)
  },
  ({ write, only }) =>
    only.length > 0 && Option.isSome(write)
      ? Console.error("--only measures part of the report; run without it to write the whole file")
      : lazy(
          () => import("./bench/index.ts"),
          (m) => Effect.promise(() => m.runBench({ ...(Option.isSome(write) ? { write: write.value } : {}), ...(only.length > 0 ? { only } : {}) }))
        )
).pipe(Command.withDescription("measure the engine, storage and HTTP node against same-run baselines"))

const url = Options.text("url").pipe(Options.optional, Options.map(urlOf))
const token = Options.text("token").pipe(Options.optional)
const secret = Options.text("secret").pipe(Options.withDefault("unsafe"))
const dev = () => import("./dev.ts")

const advanceCommand = Command.make(
  "advance",
  { duration: Args.text({ name: "DURATION" }), url, token, secret },
  (options) => lazy(dev, (m) => m.advance(options))
).pipe(Command.withDescription("move the node's ledger time forward and deliver what falls due"))

const timeCommand = Command.make("time", { url, token, secret }, (connection) => lazy(dev, (m) => m.time(connection))).pipe(
  Command.withDescription("print the node's ledger time"),
  Command.withSubcommands([advanceCommand])
)

const resetCommand = Command.make("reset", { url, token, secret }, (connection) => lazy(dev, (m) => m.reset(connection))).pipe(
  Command.withDescription("throw the node's network away and start a fresh one (genesis included)")
)

const storage = () => import("./rebuild.ts")

const rebuildCommand = Command.make("rebuild", storageOptions, (options) => lazy(storage, (m) => m.rebuild(options))).pipe(
  Command.withDescription("recompute every derived index (ACS, scan, packages) from the journals and check it against the stored one")
)

const snapshotCommand = Command.make(
  "snapshot",
  { ...storageOptions, out: Options.text("out") },
  (options) => lazy(storage, (m) => m.snapshot(options))
).pipe(Command.withDescription("write the whole network (its journals) to an archive; the node must not be running"))

const restoreCommand = Command.make(
  "restore",
  { ...storageOptions, in: Options.text("in") },
  (options) => Effect.zipRight(mustExist(Option.some(options.in), "an archive written by sandnet snapshot"), lazy(storage, (m) => m.restore(options)))
).pipe(Command.withDescription("replace the network by an archive's (users and rights stay); the node must not be running"))

const sandnet = Command.make("sandnet").pipe(
  Command.withDescription("a deterministic simulation of a coin network, and a local node serving its four HTTP surfaces"),
  Command.withSubcommands([startCommand, simulate, tokenCommand, benchCommand, timeCommand, resetCommand, rebuildCommand, snapshotCommand, restoreCommand])
)

const cli = Command.run(sandnet, { name: "sandnet", version: "0.1.0" })

/** Runs the command line; `command` names the command in failure lines ("start", "time advance"). */
export const runCli = (command: string): void =>
  cli(process.argv).pipe(
    Effect.provide(NodeContext.layer),
    Effect.catchAllCause((cause) =>
      Effect.sync(() => {
        const failure = describeFailure(cause, command)
        if (failure.line !== undefined) process.stderr.write(`${failure.line}\n`)
        process.exitCode = failure.exitCode
      })
    ),
    NodeRuntime.runMain({ disableErrorReporting: true })
  )

