/**
 * The bundle loads pg without Node's fetch (bin/build.mjs, PROBES_CLOUDFLARE): pg's probe for
 * Cloudflare Workers finds the `navigator` the lazy stub lends it while it loads, so it constructs
 * no fetch `Response` (whose first use loads undici, 40 ms of every start on a database on a slow
 * VM), and the stub takes the global away again. A pg upgrade that moved the probe would bring the
 * cost back silently; this says so.
 */
import { dropClusterSchema } from "@sandnet/store"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { postgresUrl, startNode, stop } from "./node-support.ts"

describe("a start on PostgreSQL", () => {
  it("loads pg without loading undici, and leaves no navigator behind", async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-pg-fetch-"))
    const report = path.join(cwd, "report.json")
    // what the process loaded, written as it exits
    const probe = path.join(cwd, "probe.cjs")
    fs.writeFileSync(probe, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify({ modules: process.moduleLoadList, navigator: typeof globalThis.navigator })))\n`)
    const schema = `sandnet_pgfetch_${randomBytes(4).toString("hex")}`
    try {
      const node = await startNode(["--database-url", postgresUrl, "--schema", schema], cwd, { env: { ...process.env, NODE_OPTIONS: `--require ${probe}` } })
      await stop(node, "SIGTERM")
      const { modules, navigator } = JSON.parse(fs.readFileSync(report, "utf8")) as { modules: Array<string>; navigator: string }
      // the node did reach PostgreSQL through pg
      expect(modules.some((m) => m.includes("internal/deps/undici"))).toBe(false)
      expect(modules).toContain("NativeModule net")
      expect(navigator).toBe("undefined")
    } finally {
      await Effect.runPromise(Effect.ignore(dropClusterSchema(postgresUrl, schema)))
      fs.rmSync(cwd, { recursive: true, force: true })
    }
  }, 60_000)
})
