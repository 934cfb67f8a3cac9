/** The `sandnet` command line. */
import { Args, Command, Options } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Option } from "effect"
import { makeDevToken } from "@sandnet/http"
import { BENCH_SECTIONS, runBench } from "./bench/index.ts"
import { simulateCommand } from "./simulate.ts"
import { start } from "./start.ts"
import { rebuildCommand, restoreCommand, snapshotCommand, storageOptions } from "./rebuild.ts"
import { resetCommand, timeCommand } from "./dev.ts"

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
  (options) => simulateCommand(options)
).pipe(
  Command.withDescription(
    "run a scenario on the deterministic simulator: one seed (summary, history hash), a swarm of seeds, the deliveries around a step, or the replay of a failure's trace"
  )
)

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
  (options) => start(options)
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
    Effect.flatMap(
      makeDevToken({
        user,
        secret,
        ...(Option.isSome(audience) ? { audience: audience.value } : {}),
        ...(Option.isSome(expiresIn) ? { expiresInSeconds: expiresIn.value } : {})
      }),
      (token) => Console.log(token)
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
      : Effect.promise(() => runBench({ ...(Option.isSome(write) ? { write: write.value } : {}), ...(only.length > 0 ? { only } : {}) }))
).pipe(Command.withDescription("measure the engine, storage and HTTP node against same-run baselines"))

const sandnet = Command.make("sandnet").pipe(
  Command.withDescription("a deterministic simulation of a coin network, and a local node serving its four HTTP surfaces"),
  Command.withSubcommands([startCommand, simulate, tokenCommand, benchCommand, timeCommand, resetCommand, rebuildCommand, snapshotCommand, restoreCommand])
)

const cli = Command.run(sandnet, { name: "sandnet", version: "0.1.0" })

cli(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
