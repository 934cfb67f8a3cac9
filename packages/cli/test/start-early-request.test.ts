/**
 * A request that reaches `sandnet start` while it is starting is answered once the node can answer
 * (scripts poll the port from the first milliseconds). The HTTP platform listens before it attaches
 * its request listener, and a start yields to the event loop in between (the node's time-sliced
 * scheduler does so every millisecond): a request in that gap used to be dropped by Node, and its
 * client waited forever (server.ts `holdEarlyRequests`).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, freePort } from "./node-support.ts"

/** Polls `url` every 5 ms until a connection is accepted; that request's answer, or its failure. */
const firstAccepted = async (url: string): Promise<{ status: number; body: string }> => {
  for (;;) {
    try {
      // A hang fails the test here (20 s) instead of waiting out the client's own timeout.
      const response = await fetch(url, { signal: AbortSignal.timeout(20_000) })
      return { status: response.status, body: await response.text() }
    } catch (error) {
      if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) throw new Error(`no answer to ${url} within 20 s`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
}

describe("sandnet start answers the requests that come while it starts", () => {
  for (const path_ of ["/sandnet/health", "/v2/version"]) {
    it(`a ${path_} polled from the first milliseconds is answered (data directory)`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-early-"))
      const port = await freePort()
      const child = spawn(process.execPath, [bin, "start", "--data-dir", dir, "--port", String(port)], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, DATABASE_URL: "" }
      })
      try {
        const answer = await firstAccepted(`http://127.0.0.1:${port}${path_}`)
        if (path_ === "/sandnet/health") {
          expect(answer.status).toBe(200)
          expect(JSON.parse(answer.body)).toHaveProperty("nodes")
        } else {
          // /v2 asks for a token: the answer is the ledger surface's 401, not silence.
          expect(answer.status).toBe(401)
          expect(JSON.parse(answer.body)).toMatchObject({ code: "UNAUTHENTICATED" })
        }
      } finally {
        child.kill("SIGKILL")
        await new Promise((resolve) => child.once("exit", resolve))
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }, 60_000)
  }
})
