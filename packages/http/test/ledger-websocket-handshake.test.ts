/**
 * The websocket handshake of the ledger streams: the node answers the `daml.ws.auth` subprotocol
 * when the client offers it (as the real system does), wherever it stands in the offer, and reads
 * the token from `jwt.token.<token>`. Over a raw HTTP upgrade, so the response headers are visible.
 */
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { preferDamlWsAuth } from "../src/server.ts"
import { actAs, allocateParty, startLedgerNode, userWith, type LedgerTestNode } from "./ledger-support.ts"

let node: LedgerTestNode
let token: string

beforeAll(async () => {
  node = await startLedgerNode()
  const alice = await allocateParty(node, "alice")
  token = await userWith(node, "alice", [actAs(alice)])
})
afterAll(() => node.close())

/** Opens a websocket upgrade on /v2/updates and answers the status and the selected subprotocol. */
const handshake = (
  protocols: string,
  overrides: Readonly<Record<string, string>> = {}
): Promise<{ readonly status: number; readonly protocol: string | undefined; readonly body: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL("/v2/updates", node.url)
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      headers: {
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": Buffer.from("sandnet-16-bytes").toString("base64"),
        "Sec-WebSocket-Protocol": protocols,
        // What browsers send; the node has no extensions and ignores it.
        "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits",
        ...overrides
      }
    })
    req.on("upgrade", (response, socket) => {
      socket.destroy()
      const protocol = response.headers["sec-websocket-protocol"]
      resolve({ status: response.statusCode ?? 0, protocol: typeof protocol === "string" ? protocol : undefined, body: "" })
    })
    req.on("response", (response) => {
      let body = ""
      response.on("data", (chunk: Buffer) => (body += chunk.toString()))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, protocol: undefined, body }))
    })
    req.on("error", reject)
    req.end()
  })

describe("the ledger websocket handshake", () => {
  it("answers daml.ws.auth when offered after the token, and when offered first", async () => {
    expect(await handshake(`jwt.token.${token}, daml.ws.auth`)).toEqual({ status: 101, protocol: "daml.ws.auth", body: "" })
    expect(await handshake(`daml.ws.auth, jwt.token.${token}`)).toEqual({ status: 101, protocol: "daml.ws.auth", body: "" })
  })

  it("still upgrades a client that offers only the token (its protocol echoed), and refuses one without a token", async () => {
    expect(await handshake(`jwt.token.${token}`)).toEqual({ status: 101, protocol: `jwt.token.${token}`, body: "" })
    expect((await handshake("daml.ws.auth")).status).toBe(401)
  })

  it("answers a malformed handshake 400 in the ledger's shape, naming the header (and the node still shuts down)", async () => {
    const badKey = await handshake(`jwt.token.${token}`, { "Sec-WebSocket-Key": "c2FuZG5ldC1oYW5kc2hha2U=" })
    expect(badKey.status).toBe(400)
    expect(badKey.body).toContain("Sec-WebSocket-Key")
    const badVersion = await handshake(`jwt.token.${token}`, { "Sec-WebSocket-Version": "12" })
    expect(badVersion.status).toBe(400)
    expect(badVersion.body).toContain("Sec-WebSocket-Version")
    const duplicated = await handshake(`jwt.token.${token}, daml.ws.auth, daml.ws.auth`)
    expect(duplicated.status).toBe(400)
    expect(duplicated.body).toContain("Sec-WebSocket-Protocol")
  })

  it("reorders the offer without dropping or duplicating an entry", () => {
    const incoming = { headers: { "sec-websocket-protocol": "jwt.token.a.b.c, other, daml.ws.auth" } } as unknown as Parameters<typeof preferDamlWsAuth>[0]
    preferDamlWsAuth(incoming)
    expect(incoming.headers["sec-websocket-protocol"]).toBe("daml.ws.auth, jwt.token.a.b.c, other")
  })
})
