/**
 * The `sandnet` command line. Only the commands' options are defined here: what a command does is
 * imported when it runs (its own chunk of the bundle, see bin/build.mjs), so that starting one
 * command does not compile the others' code.
 */
import { Args, Command, Options } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Option } from "effect"
import { BENCH_SECTIONS } from "./bench/sections.ts"

/** Runs `run` of a module imported when the command runs. */
const lazy = <M, A, E, R>(load: () => Promise<M>, run: (module: M) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    Effect.promise(() => load()),
    run
  )

const scenarioFile = Args.file({ name: "FILE", exists: "yes" }).pipe(
  Args.withDescription("a scenario file (YAML), e.g. scenarios/smoke.yaml"),
  Args.optional
)

const simulate = Command.make(
  "simulate",
  {
    file: scenarioFile,
    seed: Options.integer("seed").pipe(Options.optional, Options.withDescription("the seed of the run (default: the scenario's)")),
    seeds: Options.text("seeds").pipe(Options.optional, Options.withDescription("a swarm: one run per seed, e.g. 1..1000 or 1,5,9..12")),
    jobs: Options.integer("jobs").pipe(Options.withDefault(1), Options.withDescription("a swarm's runs in this many processes at once")),
    until: Options.integer("until").pipe(Options.optional, Options.withDescription("run to this delivery and print the deliveries around it")),
    replay: Options.file("replay", { exists: "yes" }).pipe(Options.optional, Options.withDescription("rerun a failed run from its trace file to its failure")),
    report: Options.text("report").pipe(Options.optional, Options.withDescription("write a self-contained HTML report with plots (one run)")),
    traceDir: Options.text("trace-dir").pipe(Options.withDefault(".sandnet/traces"), Options.withDescription("where failed runs leave their trace files")),
    quiet: Options.boolean("quiet").pipe(Options.withDescription("no progress bar on stderr")),
    worker: Options.boolean("worker").pipe(Options.withDescription("internal: a swarm's worker process"))
  },
  (options) => lazy(() => import("./simulate.ts"), (m) => m.simulateCommand(options))
).pipe(
  Command.withDescription(
    "run a scenario on the deterministic simulator: one seed (summary, history hash), a swarm of seeds, the deliveries around a step, or the replay of a failure's trace"
  )
)

const storageOptions = {
  dataDir: Options.directory("data-dir").pipe(Options.optional, Options.withDescription("the embedded database's directory (default ./.sandnet)")),
  inMemory: Options.boolean("in-memory").pipe(Options.withDescription("keep nothing: a throwaway node")),
  databaseUrl: Options.text("database-url").pipe(
    Options.optional,
    Options.withDescription("a PostgreSQL server (postgres://...; default: the DATABASE_URL variable, else the embedded database)")
  ),
  schema: Options.text("schema").pipe(Options.optional, Options.withDescription("the node's PostgreSQL schema (default: from --node-name)")),
  nodeName: Options.text("node-name").pipe(Options.withDefault("sandnet"), Options.withDescription("the node's name (names its PostgreSQL schema)"))
}

const startCommand = Command.make(
  "start",
  {
    port: Options.integer("port").pipe(Options.withDefault(7575), Options.withDescription("the port of all four surfaces")),
    host: Options.text("host").pipe(Options.withDefault("127.0.0.1")),
    secret: Options.text("secret").pipe(Options.withDefault("unsafe"), Options.withDescription("the HS256 secret of dev tokens")),
    validatorWalletUser: Options.text("validator-wallet-user").pipe(Options.withDefault("operator")),
    logRequests: Options.boolean("log-requests").pipe(Options.withDescription("log one line per HTTP request")),
    localnet: Options.boolean("localnet").pipe(
      Options.withDescription("LocalNet's layout and names (ledger 2975 / 3975, validator 2000, scan.localhost:4000, registry 5003, user ledger-api-user, Amulet): code written for LocalNet runs unchanged")
    ),
    portOffset: Options.integer("port-offset").pipe(Options.withDefault(0), Options.withDescription("with --localnet: shifts every port of the layout by this much")),
    cluster: Options.text("cluster").pipe(
      Options.optional,
      Options.withDescription("join a network spread over processes: the cluster's schema on the --database-url server; --node-name is this process's node (sv1, validator2, ...)")
    ),
    superValidators: Options.integer("super-validators").pipe(
      Options.optional,
      Options.map(Option.getOrUndefined),
      Options.withDescription("with --cluster, on sv1's process (sv1 decides the network's shape; the other processes wait for it): the network's super validators (default 1)")
    ),
    validators: Options.integer("validators").pipe(
      Options.optional,
      Options.map(Option.getOrUndefined),
      Options.withDescription("with --cluster, on sv1's process: the network's validators (default 1)")
    ),
    ...storageOptions
  },
  (options) => lazy(() => import("./start.ts"), (m) => m.start(options))
).pipe(Command.withDescription("run a local node: 1 super validator, 1 validator, 1 synchronizer, all surfaces on one port"))

const tokenCommand = Command.make(
  "token",
  {
    user: Options.text("user").pipe(Options.withDescription("the ledger user the token is for (its subject)")),
    secret: Options.text("secret").pipe(Options.withDefault("unsafe")),
    audience: Options.text("audience").pipe(Options.optional),
    expiresIn: Options.integer("expires-in").pipe(Options.optional, Options.withDescription("seconds until it expires (default: never)"))
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
    write: Options.text("write").pipe(Options.optional, Options.withDescription("write the report to this file (e.g. docs/benchmarks.md)")),
    only: Options.choice("only", BENCH_SECTIONS).pipe(Options.repeated, Options.withDescription("measure only these sections (repeatable); not with --write"))
  },
  ({ write, only }) =>
    only.length > 0 && Option.isSome(write)
      ? Console.error("--only measures part of the report; run without it to write the whole file")
      : lazy(
          () => import("./bench/index.ts"),
          (m) => Effect.promise(() => m.runBench({ ...(Option.isSome(write) ? { write: write.value } : {}), ...(only.length > 0 ? { only } : {}) }))
        )
).pipe(Command.withDescription("measure the engine, storage and HTTP node against same-run baselines"))

const url = Options.text("url").pipe(Options.withDefault("http://127.0.0.1:7575"), Options.withDescription("the node's base URL"))
const token = Options.text("token").pipe(Options.optional, Options.withDescription("a ledger token of a participant administrator"))
const secret = Options.text("secret").pipe(Options.withDefault("unsafe"), Options.withDescription("the node's HS256 secret, to make a token of participant_admin"))
const dev = () => import("./dev.ts")

const advanceCommand = Command.make(
  "advance",
  { duration: Args.text({ name: "DURATION" }).pipe(Args.withDescription("e.g. 30s, 10m, 1h, 2d")), url, token, secret },
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
  { ...storageOptions, out: Options.file("out").pipe(Options.withDescription("the archive to write (gzipped JSON)")) },
  (options) => lazy(storage, (m) => m.snapshot(options))
).pipe(Command.withDescription("write the whole network (its journals) to an archive; the node must not be running"))

const restoreCommand = Command.make(
  "restore",
  { ...storageOptions, in: Options.file("in", { exists: "yes" }).pipe(Options.withDescription("an archive written by `sandnet snapshot` or downloaded from /v2/sandnet/snapshots")) },
  (options) => lazy(storage, (m) => m.restore(options))
).pipe(Command.withDescription("replace the network by an archive's (users and rights stay); the node must not be running"))

const sandnet = Command.make("sandnet").pipe(
  Command.withDescription("a deterministic simulation of a coin network, and a local node serving its four HTTP surfaces"),
  Command.withSubcommands([startCommand, simulate, tokenCommand, benchCommand, timeCommand, resetCommand, rebuildCommand, snapshotCommand, restoreCommand])
)

const cli = Command.run(sandnet, { name: "sandnet", version: "0.1.0" })

cli(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
