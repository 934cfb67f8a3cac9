/**
 * What `sandnet <command> --help` prints, and the check of a command's flags before the command
 * line library parses them: an unknown flag is answered with one line naming the nearest known one.
 * The library's own help lists its types and internal flags; this is the page a user reads.
 */
import { BENCH_SECTIONS } from "./bench/sections.ts"

export interface Flag {
  readonly name: string
  /** The value's placeholder; absent for a switch. */
  readonly value?: string
  readonly description: string
  readonly default?: string
  /** The environment variable read when the flag is absent. */
  readonly env?: string
  readonly required?: true
}

export interface CommandHelp {
  /** As typed: "start", "time advance". */
  readonly name: string
  readonly arguments?: string
  /** One line for `sandnet --help`. */
  readonly summary: string
  readonly description: string
  readonly flags: ReadonlyArray<Flag>
  readonly examples: ReadonlyArray<string>
}

const storageFlags: ReadonlyArray<Flag> = [
  { name: "data-dir", value: "DIR", description: "the directory of the embedded database (PGlite)", default: "./.sandnet" },
  { name: "database-url", value: "URL", description: "a PostgreSQL server (postgres://user:password@host:port/database) instead of the embedded database", env: "DATABASE_URL" },
  { name: "schema", value: "NAME", description: "the node's PostgreSQL schema", default: "from --node-name" },
  { name: "node-name", value: "NAME", description: "the node's name (names its PostgreSQL schema)", default: "sandnet" }
]

const nodeFlags: ReadonlyArray<Flag> = [
  { name: "url", value: "URL", description: "the node's base URL", default: "http://127.0.0.1:7575", env: "SANDNET_URL" },
  { name: "token", value: "TOKEN", description: "a ledger token of a participant administrator (default: one made with --secret)" },
  { name: "secret", value: "SECRET", description: "the node's HS256 secret, to make a token of participant_admin", default: "unsafe" }
]

export const COMMANDS: ReadonlyArray<CommandHelp> = [
  {
    name: "start",
    summary: "run a local node (all four surfaces on one port)",
    description:
      "Run a local node: 1 super validator, 1 validator and 1 synchronizer on the live clock, the four surfaces (scan, wallet, registry, ledger) on one port. Kept in ./.sandnet unless told otherwise; a node whose store holds a network resumes it.",
    flags: [
      { name: "port", value: "PORT", description: "the port of all four surfaces", default: "7575", env: "SANDNET_PORT" },
      { name: "host", value: "HOST", description: "the address to listen on", default: "127.0.0.1" },
      { name: "in-memory", description: "keep nothing: a throwaway node" },
      ...storageFlags,
      { name: "secret", value: "SECRET", description: "the HS256 secret of dev tokens", default: "unsafe" },
      { name: "validator-wallet-user", value: "USER", description: "the ledger user of the validator operator's wallet", default: "operator" },
      { name: "log-requests", description: "print one line per HTTP request (method, path, status, time)" },
      { name: "cluster", value: "NAME", description: "join a network spread over processes, meeting in this schema on the --database-url server; --node-name is this process's node (sv1, validator2, ...)" },
      { name: "super-validators", value: "N", description: "with --cluster, on sv1's process (sv1 decides the network's shape; the others wait for it and take no shape flags): the network's super validators", default: "1" },
      { name: "validators", value: "N", description: "with --cluster, on sv1's process: the network's validators", default: "1" },
      { name: "localnet", description: "LocalNet's layout and names (ledger 2975 / 3975, validator 2000, scan.localhost:4000, registry 5003, user ledger-api-user, Amulet): code written for LocalNet runs unchanged (docs/localnet.md)" },
      { name: "port-offset", value: "N", description: "with --localnet: shifts every port of the layout by N, so parallel tests do not collide", default: "0" },
      { name: "completion-timeout", value: "SECONDS", description: "how long a submit-and-wait (504 REQUEST_TIME_OUT) or a wallet command (503 COMMAND_OUTCOME_UNKNOWN) awaits its completion before answering that its outcome is unknown", default: "60" },
      { name: "checkpoint-every", value: "ENTRIES", description: "journal entries between two engine checkpoints while the node is busy, at least (a node idle for 2 s writes one after an eighth of that; a restart restores the last one and replays only what follows it; 0: none written or read, a restart replays the whole journal)", default: "20000" }
    ],
    examples: ["sandnet start --in-memory", "sandnet start --port 8080 --data-dir ./my-node", "sandnet start --localnet --in-memory", "DATABASE_URL=postgres://localhost/sandnet sandnet start"]
  },
  {
    name: "simulate",
    summary: "run a scenario on the deterministic simulator",
    arguments: "FILE",
    description:
      "Run a scenario (YAML) on the deterministic simulator: one seed (a summary, the history hash last), a swarm of seeds, the deliveries around one step, or the replay of a failed run's trace. A failed run leaves a trace file and exits with 1.",
    flags: [
      { name: "seed", value: "N", description: "the seed of the run", default: "the scenario's" },
      { name: "seeds", value: "LIST", description: "a swarm: one run per seed, e.g. 1..1000 or 1,5,9..12" },
      { name: "jobs", value: "N", description: "a swarm's runs in this many processes at once", default: "1" },
      { name: "until", value: "STEP", description: "run to this delivery and print the deliveries around it" },
      { name: "replay", value: "TRACE", description: "rerun a run from its trace file: a failure to the failure, a kept passing run to its end (no FILE needed)" },
      { name: "report", value: "FILE.html", description: "write a self-contained HTML report with plots (one run)" },
      { name: "trace-dir", value: "DIR", description: "where failed runs leave their trace files", default: ".sandnet/traces" },
      { name: "keep-trace", description: "leave the trace of a run that passed too, to replay it exactly elsewhere (one run)" },
      { name: "quiet", description: "no progress bar on stderr" }
    ],
    examples: ["sandnet simulate scenarios/smoke.yaml --seed 42", "sandnet simulate scenarios/smoke.yaml --seeds 1..100 --jobs 2"]
  },
  {
    name: "token",
    summary: "print a dev token for a ledger user",
    description: "Print a dev token (HS256 JWT) for a ledger user, accepted by a node started with the same --secret.",
    flags: [
      { name: "user", value: "USER", description: "the ledger user the token is for (its subject)", required: true },
      { name: "secret", value: "SECRET", description: "the node's HS256 secret", default: "unsafe" },
      { name: "audience", value: "AUDIENCE", description: "the token's audience (aud)" },
      { name: "expires-in", value: "SECONDS", description: "seconds until it expires", default: "never" }
    ],
    examples: ["sandnet token --user operator", 'curl -H "Authorization: Bearer $(sandnet token --user operator)" http://127.0.0.1:7575/v2/version']
  },
  {
    name: "bench",
    summary: "measure against same-run baselines",
    description: "Measure the engine, storage, HTTP node and start-up, each beside a baseline measured in the same run, and print the report (docs/benchmarks.md).",
    flags: [
      { name: "only", value: "SECTION", description: `measure only this section (repeatable): ${BENCH_SECTIONS.join(", ")}` },
      { name: "write", value: "FILE", description: "write the whole report to this file (not with --only)" }
    ],
    examples: ["sandnet bench --only startup", "sandnet bench --write docs/benchmarks.md"]
  },
  {
    name: "time",
    summary: "print a running node's ledger time",
    description: "Print a running node's ledger time.",
    flags: nodeFlags,
    examples: ["sandnet time", "SANDNET_URL=http://127.0.0.1:8080 sandnet time"]
  },
  {
    name: "time advance",
    summary: "move a running node's ledger time forward",
    arguments: "DURATION",
    description: "Move a running node's ledger time forward (us, ms, s, m, h, d) and deliver what falls due.",
    flags: nodeFlags,
    examples: ["sandnet time advance 10m", "sandnet time advance 2d --url http://127.0.0.1:8080"]
  },
  {
    name: "reset",
    summary: "start a running node's network afresh",
    description: "Throw a running node's network away and start a fresh one (genesis included); users and rights stay.",
    flags: nodeFlags,
    examples: ["sandnet reset"]
  },
  {
    name: "rebuild",
    summary: "recompute and check the stored indexes",
    description:
      "Recompute every derived index (ACS, scan, packages) from the journals, check it against the stored one and store it. The node must not be running on the same store.",
    flags: storageFlags,
    examples: ["sandnet rebuild", "sandnet rebuild --data-dir ./my-node"]
  },
  {
    name: "snapshot",
    summary: "write the network to an archive",
    description: "Write the whole network (its journals) to an archive (gzipped JSON). The node must not be running on the same store.",
    flags: [{ name: "out", value: "FILE", description: "the archive to write", required: true }, ...storageFlags],
    examples: ["sandnet snapshot --out network.json.gz"]
  },
  {
    name: "restore",
    summary: "replace the network by an archive's",
    description: "Replace the network by an archive's (users and rights stay). The node must not be running on the same store.",
    flags: [{ name: "in", value: "FILE", description: "an archive written by `sandnet snapshot` or downloaded from /v2/sandnet/snapshots", required: true }, ...storageFlags],
    examples: ["sandnet restore --in network.json.gz"]
  }
]

/** Flags every command takes (the command line library's own). */
const BUILT_IN = ["help", "version", "wizard", "completions", "log-level"]

/** Flags accepted but not shown: the storage commands take --in-memory (and find nothing there). */
const ACCEPTED: Record<string, ReadonlyArray<string>> = { rebuild: ["in-memory"], snapshot: ["in-memory"], restore: ["in-memory"] }

const wrap = (text: string, width: number, indent: string): string => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines.map((l) => indent + l).join("\n")
}

const flagNote = (flag: Flag): string => {
  const notes = [
    ...(flag.required === true ? ["required"] : []),
    ...(flag.default === undefined ? [] : [`default: ${flag.default}`]),
    ...(flag.env === undefined ? [] : [`env ${flag.env}`])
  ]
  return notes.length === 0 ? flag.description : `${flag.description} (${notes.join("; ")})`
}

export const renderCommandHelp = (command: CommandHelp): string => {
  const subcommands = COMMANDS.filter((c) => c.name.startsWith(`${command.name} `))
  const labels = command.flags.map((f) => `--${f.name}${f.value === undefined ? "" : ` ${f.value}`}`)
  const width = Math.max(...labels.map((l) => l.length), 10) + 2
  return [
    `Usage: sandnet ${command.name}${command.arguments === undefined ? "" : ` ${command.arguments}`} [options]`,
    ...subcommands.map((s) => `       sandnet ${s.name}${s.arguments === undefined ? "" : ` ${s.arguments}`} [options]`),
    "",
    wrap(command.description, 98, ""),
    "",
    "Options:",
    ...command.flags.map((f, i) => `  ${labels[i]!.padEnd(width)}${wrap(flagNote(f), 96 - width, " ".repeat(width + 2)).trimStart()}`),
    `  ${"--help".padEnd(width)}this page`,
    "",
    command.examples.length === 1 ? "Example:" : "Examples:",
    ...command.examples.map((e) => `  ${e}`),
    ""
  ].join("\n")
}

export const renderMainHelp = (): string =>
  [
    "Usage: sandnet <command> [options]",
    "",
    "A deterministic simulation of a coin network, and a local node serving its four HTTP surfaces",
    "(scan, wallet, registry, ledger JSON API).",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(14)}${c.summary}`),
    "",
    "Run `sandnet <command> --help` for a command's options and examples.",
    "",
    "Examples:",
    "  sandnet start --in-memory",
    "  sandnet token --user operator",
    "  sandnet simulate scenarios/smoke.yaml --seed 42",
    ""
  ].join("\n")

/** The edit distance of two words (for "did you mean"). */
export const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)))
    previous = current
  }
  return previous[b.length]!
}

const nearest = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  const ranked = candidates.map((c) => ({ c, d: distance(word, c) })).sort((x, y) => x.d - y.d)
  const best = ranked[0]
  return best !== undefined && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.c : undefined
}

/** What to do before the command line library sees the arguments. */
export type Preflight =
  | { readonly _tag: "run" }
  | { readonly _tag: "help"; readonly text: string }
  | { readonly _tag: "error"; readonly line: string }

/** Reads `sandnet <command> [subcommand] ...` (args without node and the script). */
export const preflight = (args: ReadonlyArray<string>): Preflight => {
  const first = args[0]
  if (first === undefined || first === "--help" || first === "-h") return { _tag: "help", text: renderMainHelp() }
  if (first === "--version" || first.startsWith("--")) return { _tag: "run" }
  const sub = args[1] !== undefined && !args[1].startsWith("-") ? COMMANDS.find((c) => c.name === `${first} ${args[1]}`) : undefined
  const command = sub ?? COMMANDS.find((c) => c.name === first)
  if (command === undefined) {
    const guess = nearest(first, COMMANDS.map((c) => c.name).filter((n) => !n.includes(" ")))
    return { _tag: "error", line: `sandnet: unknown command ${first}${guess === undefined ? "" : ` (did you mean ${guess}?)`}; see sandnet --help` }
  }
  const rest = args.slice(sub === undefined ? 1 : 2)
  if (rest.includes("--help") || rest.includes("-h")) return { _tag: "help", text: renderCommandHelp(command) }
  const known = [...command.flags.map((f) => f.name), ...(ACCEPTED[command.name] ?? []), ...BUILT_IN]
  for (const arg of rest) {
    if (!arg.startsWith("--")) continue
    const name = arg.slice(2).split("=")[0]!
    if (known.includes(name)) continue
    const guess = nearest(name, command.flags.map((f) => f.name))
    return { _tag: "error", line: `sandnet ${command.name}: unknown flag --${name}${guess === undefined ? "" : ` (did you mean --${guess}?)`}; see sandnet ${command.name} --help` }
  }
  const missing = command.flags.find((f) => f.required === true && !rest.some((a) => a === `--${f.name}` || a.startsWith(`--${f.name}=`)))
  if (missing !== undefined) {
    return { _tag: "error", line: `sandnet ${command.name}: --${missing.name} ${missing.value} is required: ${missing.description}; e.g. ${command.examples[0]}` }
  }
  return { _tag: "run" }
}
