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
const handshake = (protocols: string): Promise<{ readonly status: number; readonly protocol: string | undefined }> =>
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
        "Sec-WebSocket-Protocol": protocols
      }
    })
    req.on("upgrade", (response, socket) => {
      socket.destroy()
      const protocol = response.headers["sec-websocket-protocol"]
      resolve({ status: response.statusCode ?? 0, protocol: typeof protocol === "string" ? protocol : undefined })
    })
    req.on("response", (response) => {
      response.resume()
      resolve({ status: response.statusCode ?? 0, protocol: undefined })
    })
    req.on("error", reject)
    req.end()
  })

describe("the ledger websocket handshake", () => {
  it("answers daml.ws.auth when offered after the token, and when offered first", async () => {
    expect(await handshake(`jwt.token.${token}, daml.ws.auth`)).toEqual({ status: 101, protocol: "daml.ws.auth" })
    expect(await handshake(`daml.ws.auth, jwt.token.${token}`)).toEqual({ status: 101, protocol: "daml.ws.auth" })
  })

  it("still upgrades a client that offers only the token (its protocol echoed), and refuses one without a token", async () => {
    expect(await handshake(`jwt.token.${token}`)).toEqual({ status: 101, protocol: `jwt.token.${token}` })
    expect((await handshake("daml.ws.auth")).status).toBe(401)
  })

  it("reorders the offer without dropping or duplicating an entry", () => {
    const incoming = { headers: { "sec-websocket-protocol": "jwt.token.a.b.c, other, daml.ws.auth" } } as unknown as Parameters<typeof preferDamlWsAuth>[0]
    preferDamlWsAuth(incoming)
    expect(incoming.headers["sec-websocket-protocol"]).toBe("daml.ws.auth, jwt.token.a.b.c, other")
  })
})
