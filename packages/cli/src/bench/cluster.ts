/**
 * Cluster benchmark: a network spread over processes (`sandnet start --cluster`: sv1 with the
 * synchronizer, validator1, validator2, three child processes on one PostgreSQL server) answering
 * transfer-offer creations submitted on validator1 for validator2's operator (submit-and-wait, so
 * each answer waited for the synchronizer's process to sequence it and its mediator to decide).
 * Baseline, in the same run on the same server: one `sandnet start` process running the whole
 * network, with the same requests. Figures: acknowledged offers per second (concurrent clients)
 * and the latency of one request at a time; then the restart of a process killed with SIGKILL
 * (validator2's; the one process's in the baseline) after it sat idle, as the restart section's
 * `i` sizes do: spawn to its first answer, and what its ready line says it resumed from.
 *
 * PostgreSQL: `SANDNET_BENCH_POSTGRES_URL`, else `DATABASE_URL`, else the local test server.
 */
import { TransferOffer } from "@sandnet/engine"
import { makeDevToken } from "@sandnet/http"
import { dropClusterSchema } from "@sandnet/store"
import { Effect } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { IDLE_BEFORE_KILL_MS } from "./restart.ts"
import { freePort, kill9, stop } from "./startup.ts"
import { fmt, heapFlags, postgresUrl } from "./machine.ts"

export interface ClusterBenchRow {
  readonly layout: string
  readonly processes: number
  readonly offersPerSecond: number
  readonly medianLatencyMillis: number
  readonly p90LatencyMillis: number
  /** Spawn to ready of the process restarted after kill -9 (validator2's when spread), and its ready line's "resumed: ..." */
  readonly restart: { readonly millis: number; readonly resumed: string } | undefined
}

export interface ClusterBench {
  /** Offers from the concurrent clients in each layout. */
  readonly offers: number
  readonly rows: ReadonlyArray<ClusterBenchRow>
  readonly skipped: string | undefined
}

/** Offers from the concurrent clients: `SANDNET_BENCH_CLUSTER_OFFERS`, else 600 (more makes the restart's history longer). */
export const clusterOffers = (raw: string | undefined = process.env["SANDNET_BENCH_CLUSTER_OFFERS"]): number => {
  if (raw === undefined || raw === "") return 600
  const offers = Number(raw)
  if (!Number.isSafeInteger(offers) || offers < 1) throw new Error(`SANDNET_BENCH_CLUSTER_OFFERS must be a whole number of offers, got ${JSON.stringify(raw)}`)
  return offers
}
const CLIENTS = 16
const SEQUENTIAL = 60


interface Started {
  readonly child: ChildProcess
  readonly url: string
  readonly output: () => string
}

/** `sandnet start` as a child process (this very command's entry point), ready. */
const start = async (args: ReadonlyArray<string>): Promise<Started> => {
  const port = await freePort()
  const child = spawn(process.execPath, [...heapFlags(), process.argv[1]!, "start", "--port", String(port), ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`a node did not start:\n${output}`)), 120_000)
    child.stdout!.on("data", () => {
      if (output.includes("Sandnet node ready")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`a node exited (${code}):\n${output}`))
    })
  })
  child.removeAllListeners("exit")
  return { child, url: `http://127.0.0.1:${port}`, output: () => output }
}

/** After `IDLE_BEFORE_KILL_MS` idle, kill -9 of `node` and its start again with `args`: the new process, how long it took, and what it resumed from. */
const restartAfterKill = async (node: Started, args: ReadonlyArray<string>): Promise<{ readonly started: Started; readonly millis: number; readonly resumed: string }> => {
  await new Promise((resolve) => setTimeout(resolve, IDLE_BEFORE_KILL_MS))
  await kill9(node.child)
  const t = performance.now()
  const started = await start(args)
  const output = started.output()
  const parts = /ready in [^(\n]*\(([^)\n]*)\)/.exec(output)?.[1]
  const resumed = /resumed: [^\n]*/.exec(output)?.[0] ?? "(no resumed line)"
  return { started, millis: performance.now() - t, resumed: parts === undefined ? resumed : `${resumed} (${parts})` }
}

const call = async (url: string, token: string, method: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
  const answer = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await answer.text()
  return { status: answer.status, json: text === "" ? undefined : (JSON.parse(text) as unknown) }
}

const operatorOf = async (url: string, token: string) => ((await call(`${url}/v2/users/operator`, token, "GET")).json as { user: { primaryParty: string } }).user.primaryParty
const dsoOf = async (url: string, token: string) =>
  ((await call(`${url}/v2/parties`, token, "GET")).json as { partyDetails: Array<{ party: string }> }).partyDetails.map((p) => p.party).find((p) => p.startsWith("DSO::"))!

/** Sequential latencies, then concurrent throughput, of offer creations from `sender` to `receiver` on `url`. */
const measure = async (url: string, token: string, sender: string, receiver: string, dso: string, layout: string, processes: number, offers: number): Promise<ClusterBenchRow> => {
  const run = randomBytes(3).toString("hex")
  const submit = async (i: number) => {
    const commandId = `bench-${run}-${i}`
    const answer = await call(`${url}/v2/commands/submit-and-wait`, token, "POST", {
      commands: [
        {
          CreateCommand: {
            templateId: TransferOffer.nameReference,
            createArguments: {
              sender,
              receiver,
              dso,
              amount: { amount: "1.0000000000", unit: "CoinUnit" },
              description: "cluster bench",
              expiresAt: "2099-01-01T00:00:00.000000Z",
              trackingId: commandId
            }
          }
        }
      ],
      commandId,
      actAs: [sender]
    })
    if (answer.status !== 200) throw new Error(`${layout}: offer ${i} answered ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`)
  }
  for (let i = 0; i < 20; i++) await submit(i) // warm-up
  const latencies: Array<number> = []
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t = performance.now()
    await submit(100 + i)
    latencies.push(performance.now() - t)
  }
  latencies.sort((a, b) => a - b)
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < offers) await submit(1000 + next++)
    })
  )
  const seconds = (performance.now() - started) / 1000
  return {
    layout,
    processes,
    offersPerSecond: offers / seconds,
    medianLatencyMillis: latencies[Math.floor(latencies.length / 2)]!,
    p90LatencyMillis: latencies[Math.floor(latencies.length * 0.9)]!,
    restart: undefined
  }
}

export const benchCluster = async (): Promise<ClusterBench> => {
  const url = postgresUrl()
  const offers = clusterOffers()
  const token = await Effect.runPromise(makeDevToken({ user: "operator", secret: "unsafe" }))
  const cluster = `bench_${randomBytes(3).toString("hex")}`
  const single = `${cluster}_single`
  const nodes = ["sv1", "validator1", "validator2"] as const
  const started: Array<Started> = []
  try {
    const oneArgs = ["--database-url", url, "--schema", single]
    const one = await start(oneArgs)
    started.push(one)
    const oneOperator = await operatorOf(one.url, token)
    const baseline = await measure(one.url, token, oneOperator, oneOperator, await dsoOf(one.url, token), "one process (whole network)", 1, offers)
    const oneAgain = await restartAfterKill(one, oneArgs)
    started.push(oneAgain.started)
    await stop(oneAgain.started.child)
    const spreadArgs = (n: string) => ["--database-url", url, "--cluster", cluster, "--node-name", n, "--validators", "2"]
    const spread = await Promise.all(nodes.map((n) => start(spreadArgs(n))))
    started.push(...spread)
    const [v1, v2] = [spread[1]!, spread[2]!]
    const row = await measure(v1.url, token, await operatorOf(v1.url, token), await operatorOf(v2.url, token), await dsoOf(v1.url, token), "spread: sv1, validator1, validator2", 3, offers)
    const v2Again = await restartAfterKill(v2, spreadArgs("validator2"))
    started.push(v2Again.started)
    return {
      rows: [
        { ...baseline, restart: { millis: oneAgain.millis, resumed: oneAgain.resumed } },
        { ...row, restart: { millis: v2Again.millis, resumed: v2Again.resumed } }
      ],
      offers,
      skipped: undefined
    }
  } catch (error) {
    return { offers, rows: [], skipped: error instanceof Error ? error.message.split("\n")[0] : String(error) }
  } finally {
    await Promise.all(started.map((node) => stop(node.child)))
    for (const schema of [cluster, single, ...nodes.map((n) => `${cluster}_${n}`)]) await Effect.runPromise(Effect.ignore(dropClusterSchema(url, schema)))
  }
}

export const renderCluster = (c: ClusterBench): Array<string> => {
  if (c.rows.length < 2) return ["## A network spread over processes", "", `Skipped: ${c.skipped ?? "no figures"}.`, ""]
  const [base, spread] = [c.rows[0]!, c.rows[1]!]
  return [
    "## A network spread over processes",
    "",
    "Transfer-offer creations (`submit-and-wait`) on PostgreSQL: first one `sandnet start` process running the",
    "whole network (the baseline), then the same network as three `sandnet start --cluster` processes (sv1 with",
    "the synchronizer, validator1, validator2; offers from validator1's operator to validator2's), in the same run.",
    `${SEQUENTIAL} requests one at a time for the latency, then ${fmt(c.offers)} from ${CLIENTS} concurrent clients.`,
    "",
    "| layout | processes | acknowledged offers/s | ratio to one process | latency p50 | latency p90 |",
    "|---|---|---|---|---|---|",
    ...c.rows.map(
      (r) =>
        `| ${r.layout} | ${r.processes} | **${fmt(r.offersPerSecond)}** | ${fmt(r.offersPerSecond / base.offersPerSecond, 2)}x | ${fmt(r.medianLatencyMillis, 1)} ms | ${fmt(r.p90LatencyMillis, 1)} ms |`
    ),
    "",
    `Spread over processes, a request crosses the cluster's mailbox four times (submission to the sequencer, the`,
    `confirmation request, the response, the verdict), each a PostgreSQL commit and a NOTIFY: ${fmt(spread.medianLatencyMillis / base.medianLatencyMillis, 1)}x the`,
    "latency of one process, where all of it is in memory.",
    "",
    `Restart after kill -9, ${IDLE_BEFORE_KILL_MS / 1000} s after the last offer (an idle node writes its engine checkpoint: docs/storage.md), spawn to ready:`,
    "",
    "| process killed | restart | what it resumed from |",
    "|---|---|---|",
    ...c.rows.map((r) => `| ${r.processes === 1 ? "the one process" : "validator2 (spread)"} | ${r.restart === undefined ? "-" : `**${fmt(r.restart.millis)} ms**`} | ${r.restart?.resumed ?? "-"} |`),
    ""
  ]
}
