/**
 * A node in LocalNet's layout (`sandnet start --localnet` as the CLI wires it, in memory, on the
 * live clock: the SDK picks the open round by the wall clock), shifted by a port offset of its own so that test files running at once do not
 * collide; LocalNet's user `ledger-api-user` acts as the validator operator with admin rights.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import { request } from "node:http"
import { defaultWalletConfig, type CoinNetworkConfig } from "@sandnet/engine"
import * as Node from "@sandnet/node"
import * as Http from "../src/index.ts"
import { Admin } from "../src/engine-admin.ts"

export interface LocalNetNode {
  readonly ports: Http.LocalNetPorts
  readonly runtime: Node.NodeRuntimeService
  /** The validator operator's party (the party of `ledger-api-user`). */
  readonly operator: string
  readonly close: () => Promise<void>
}

/**
 * Each file passes its own slot (0..). Offsets stay below the ephemeral port range (32768..), where
 * port-0 servers and outgoing connections of other tests land: 2000..5003 shift into 12000..30903.
 */
export const portOffsetFor = (slot: number, attempt: number): number => 10000 + (((process.pid % 40) * 400 + slot * 100 + attempt * 4100) % 16000)

export const startLocalNet = async (slot: number, options: { readonly network?: Partial<CoinNetworkConfig> } = {}): Promise<LocalNetNode> => {
  // A port taken by another process moves the whole layout elsewhere.
  for (let attempt = 0; ; attempt++) {
    try {
      return await startLocalNetAt(portOffsetFor(slot, attempt), options)
    } catch (error) {
      if (attempt >= 3) throw error
    }
  }
}

const startLocalNetAt = async (portOffset: number, options: { readonly network?: Partial<CoinNetworkConfig> }): Promise<LocalNetNode> => {
  const scope = Effect.runSync(Scope.make())
  const layer = Http.serveLocalNet(Http.NodeRoutes, { portOffset, host: "127.0.0.1", reads: Http.NodeReadRoutes }).pipe(
    Layer.provideMerge(Admin.UserManagement.layerMemory()),
    Layer.provideMerge(
      Node.nodeRuntimeLayer({
        clock: { _tag: "live" },
        tickIntervalMillis: 20,
        wallets: true,
        automation: true,
        walletConfig: { ...defaultWalletConfig, validatorWalletUser: Http.LOCALNET_USER },
        ...(options.network === undefined ? {} : { network: options.network })
      })
    )
  )
  const built = await Effect.runPromise(Effect.either(Layer.buildWithScope(layer, scope)))
  if (built._tag === "Left") {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw new Error(`the LocalNet layout at offset ${portOffset} did not start: ${String(built.left)}`)
  }
  const context = built.right
  const runtime = Effect.runSync(Effect.provide(Node.NodeRuntime, context))
  const users = Effect.runSync(Effect.provide(Admin.UserManagement, context))
  const engine = await Effect.runPromise(runtime.engine)
  const operator = engine.network.validators[0]!.operator
  await Effect.runPromise(
    users.createUser({
      user: { id: Http.LOCALNET_USER, primaryParty: operator },
      rights: [Admin.Rights.canActAs(operator), Admin.Rights.canReadAs(operator), Admin.Rights.participantAdmin]
    })
  )
  return { ports: Http.localNetPorts(portOffset), runtime, operator, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** LocalNet's token: HS256 `unsafe`, audience `https://canton.network.global`, empty scope (as the SDK's self_signed config makes it). */
export const localNetToken = (user: string = Http.LOCALNET_USER): Promise<string> =>
  Effect.runPromise(Http.makeDevToken({ user, audience: Http.LOCALNET_AUDIENCE, scope: "" }))

export interface Reply {
  readonly status: number
  readonly json: unknown
}

/** A request with an explicit Host header (`scan.localhost` does not resolve everywhere). */
export const requestWithHost = (port: number, host: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body)
    const headers: Record<string, string> = { host: `${host}:${port}` }
    if (body !== undefined) headers["content-type"] = "application/json"
    if (init.token !== undefined) headers["authorization"] = `Bearer ${init.token}`
    const req = request({ host: "127.0.0.1", port, path, method: init.method ?? (body === undefined ? "GET" : "POST"), headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let json: unknown = undefined
        try {
          json = JSON.parse(text)
        } catch {
          json = text
        }
        resolve({ status: res.statusCode ?? 0, json })
      })
    })
    req.on("error", reject)
    if (body !== undefined) req.write(body)
    req.end()
  })
