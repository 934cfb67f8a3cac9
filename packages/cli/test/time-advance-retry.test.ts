/**
 * `sandnet time advance` sends an advanceId and, when the connection breaks before the answer (a
 * long advance outlasting the HTTP client's timeout), sends the same request again: the node
 * answers the first advance's result instead of moving time twice. A stand-in node here breaks
 * the first connection and answers the second.
 */
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { bin, root } from "./node-support.ts"

const runCli = (args: ReadonlyArray<string>): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (d: Buffer) => (output += d.toString()))
    child.stderr.on("data", (d: Buffer) => (output += d.toString()))
    child.on("exit", (code) => resolve({ code, output }))
  })

describe("sandnet time advance", () => {
  it("sends the request again with the same advanceId when the connection breaks before the answer", async () => {
    const bodies: Array<{ duration?: string; advanceId?: string }> = []
    const server = createServer((request, response) => {
      let text = ""
      request.on("data", (d: Buffer) => (text += d.toString()))
      request.on("end", () => {
        bodies.push(JSON.parse(text) as { duration?: string; advanceId?: string })
        if (bodies.length === 1) return request.socket.destroy()
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ now: "2027-01-01T00:00:00.000000Z", microseconds: 1798761600000000 }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const ran = await runCli(["time", "advance", "40d", "--url", `http://127.0.0.1:${port}`])
      expect(ran).toEqual({ code: 0, output: "ledger time is now 2027-01-01T00:00:00.000000Z\n" })
      expect(bodies).toHaveLength(2)
      expect(bodies[0]!.duration).toBe("40d")
      expect(bodies[0]!.advanceId).toMatch(/^cli-/)
      expect(bodies[1]).toEqual(bodies[0])
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
