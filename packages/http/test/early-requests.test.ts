/**
 * Requests that reach a starting node before its request listener is attached wait for it
 * (server.ts `holdEarlyRequests`); beyond the limit they are answered 503 NODE_STARTING in the
 * error shape of their surface, with Retry-After, instead of being dropped.
 */
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { holdEarlyRequests } from "../src/server.ts"

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

const get = (port: number, path: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = ""
      res.on("data", (chunk: Buffer) => (body += chunk.toString()))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    req.end()
  })

let server: Server | undefined

afterEach(() => {
  server?.closeAllConnections()
  server?.close()
  server = undefined
})

const listening = async (limit: number): Promise<number> => {
  server = createServer()
  holdEarlyRequests(server, limit)
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
  return (server.address() as AddressInfo).port
}

/** Resolves once the server has received `count` requests (held or answered). */
const received = (count: number): Promise<void> =>
  new Promise((resolve) => {
    let seen = 0
    server!.on("connection", (socket) =>
      socket.once("data", () => {
        seen += 1
        if (seen === count) setTimeout(resolve, 20)
      })
    )
  })

describe("requests during a start", () => {
  it("are held until the listener is attached, then answered in order", async () => {
    const port = await listening(4)
    const arrived = received(2)
    const first = get(port, "/v2/version")
    const second = get(port, "/api/scan/v0/dso")
    await arrived
    server!.on("request", (req, res) => res.end(`answered ${req.url}`))
    expect((await first).body).toBe("answered /v2/version")
    expect((await second).body).toBe("answered /api/scan/v0/dso")
  })

  it("beyond the limit are answered 503 NODE_STARTING in their surface's shape", async () => {
    const port = await listening(1)
    const arrived = received(3)
    const held = get(port, "/sandnet/health")
    const ledger = await get(port, "/v2/state/ledger-end")
    const scan = await get(port, "/api/scan/v0/dso")
    expect(ledger.status).toBe(503)
    expect(ledger.headers["retry-after"]).toBe("1")
    const canton = JSON.parse(ledger.body) as { code: string; cause: string; grpcCodeValue?: number }
    expect(canton.code).toBe("NODE_STARTING")
    expect(canton.cause).toMatch(/the node is starting/)
    expect(scan.status).toBe(503)
    expect(JSON.parse(scan.body)).toEqual({ error: "the node is starting; retry in a moment (NODE_STARTING)" })
    await arrived
    server!.on("request", (req, res) => res.end(`answered ${req.url}`))
    expect((await held).body).toBe("answered /sandnet/health")
  })
})
