import { afterAll } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EventStore } from "../src/index.ts"
import { behaviouralSuite } from "./suite.ts"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-store-pglite-"))
let n = 0
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

behaviouralSuite("pglite", () =>
  Effect.sync(() => ({ layer: EventStore.pglite({ dataDir: path.join(root, `t${n++}`) }), groupCommit: true })))
