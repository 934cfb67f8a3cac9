/**
 * Helpers of the wallet surface tests: a node with its engine, the validators' wallets and their
 * automations on a manual clock (as `sandnet start` wires it), on a free port; calls to
 * `/api/validator` with dev tokens; and an Ed25519 key pair of an external wallet (node:crypto).
 */
import { Effect, Exit, Layer, Scope } from "effect"
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto"
import { expect } from "vitest"
import type { Micros } from "@sandnet/core"
import { defaultWalletConfig, type CoinNetworkConfig, type LinkModel, type WalletConfig } from "@sandnet/engine"
import * as Node from "@sandnet/node"
import * as Http from "../src/index.ts"
import { adminToken, call, devToken, type Call } from "./support.ts"

/** 2026-01-01T10:30:00Z. */
export const START: Micros = Date.UTC(2026, 0, 1, 10, 30) * 1000

export interface WalletTestNode {
  readonly url: string
  readonly runtime: Node.NodeRuntimeService
  /** Token of `participant_admin`. */
  readonly admin: string
  readonly engine: () => Promise<Node.EngineInstance>
  readonly now: () => Promise<Micros>
  /** Moves ledger time forward (delivering what falls due). */
  readonly advance: (by: Micros) => Promise<Micros>
  /** Replaces the network's link model (e.g. to hold submissions in flight). */
  readonly setLink: (link: LinkModel) => Promise<void>
  readonly close: () => Promise<void>
}

export const startWalletNode = async (
  options: {
    readonly network?: Partial<CoinNetworkConfig>
    readonly walletConfig?: Partial<WalletConfig>
    /** The names the surfaces speak: the spec's (default) or LocalNet's upstream names. */
    readonly dialect?: Http.DialectName
  } = {}
): Promise<WalletTestNode> => {
  const scope = Effect.runSync(Scope.make())
  const layer = Http.layerMemory({ http: { port: 0, logRequests: false } }).pipe(
    Layer.provide(Http.Dialect.layer(options.dialect ?? "spec")),
    Layer.provideMerge(
      Node.nodeRuntimeLayer({
        clock: { _tag: "manual", start: START },
        tickIntervalMillis: 20,
        wallets: true,
        automation: true,
        ...(options.network === undefined ? {} : { network: options.network }),
        ...(options.walletConfig === undefined ? {} : { walletConfig: { ...defaultWalletConfig, ...options.walletConfig } })
      })
    )
  )
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const url = Effect.runSync(Effect.provide(Http.baseUrl, context))
  const runtime = Effect.runSync(Effect.provide(Node.NodeRuntime, context))
  return {
    url,
    runtime,
    admin: await adminToken(),
    engine: () => Effect.runPromise(runtime.engine),
    now: () => Effect.runPromise(runtime.now),
    advance: (by) => Effect.runPromise(Effect.map(runtime.advanceTime(by), (advanced) => advanced.now)),
    setLink: (link) => Effect.runPromise(Effect.map(runtime.engine, (engine) => engine.queue.setLinkModel(link))),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** A call to the wallet surface (`/api/validator` + path). */
export const wallet = (
  node: WalletTestNode,
  method: "GET" | "POST" | "DELETE",
  path: string,
  token: string | undefined,
  body?: unknown
): Promise<Call> => call(`${node.url}/api/validator${path}`, { method, token, ...(body === undefined ? {} : { body }) })

export const tokenOf = (user: string): Promise<string> => devToken(user)

/** Expects an `{error}` body with this status; returns the message. */
export const expectError = (reply: Call, status: number): string => {
  expect({ status: reply.status, body: reply.json }).toEqual({ status, body: { error: expect.any(String) } })
  return (reply.json as { error: string }).error
}

/** Expects 200 and returns the body. */
export const ok = <A = Record<string, unknown>>(reply: Call): A => {
  expect({ status: reply.status, body: reply.json }).toEqual({ status: 200, body: reply.json })
  return reply.json as A
}

/** Expects 200 with an empty body (the upstream "ok" without content). */
export const okEmpty = (reply: Call): void => {
  expect({ status: reply.status, text: reply.text }).toEqual({ status: 200, text: "" })
}

/** Onboards a user through the admin API and returns its party. */
export const onboard = async (node: WalletTestNode, name: string): Promise<string> => {
  const reply = await wallet(node, "POST", "/v0/admin/users", node.admin, { name })
  if (reply.status !== 200) throw new Error(`onboard ${name}: ${reply.status} ${reply.text}`)
  return (reply.json as { party_id: string }).party_id
}

/** Taps coin for a user through the wallet (a devnet). */
export const tapFor = async (node: WalletTestNode, token: string, amount: string): Promise<string> => {
  const reply = await wallet(node, "POST", "/v0/wallet/tap", token, { amount })
  if (reply.status !== 200) throw new Error(`tap: ${reply.status} ${reply.text}`)
  return (reply.json as { contract_id: string }).contract_id
}

export const balanceOf = async (node: WalletTestNode, token: string): Promise<string> =>
  ((await wallet(node, "GET", "/v0/wallet/balance", token)).json as { effective_unlocked_qty: string }).effective_unlocked_qty

/** An external wallet's Ed25519 key pair: the raw public key as hex, and signing of hex messages. */
export interface ExternalKeys {
  readonly publicHex: string
  readonly sign: (hex: string) => string
}

export const newKeys = (): ExternalKeys => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519")
  const spki = publicKey.export({ format: "der", type: "spki" })
  const key: KeyObject = privateKey
  return {
    publicHex: spki.subarray(spki.length - 32).toString("hex"),
    sign: (hex) => sign(null, Buffer.from(hex, "hex"), key).toString("hex")
  }
}

/** Microseconds. */
export const seconds = (n: number): Micros => n * 1_000_000
export const minutes = (n: number): Micros => n * 60_000_000
export const hours = (n: number): Micros => n * 3_600_000_000
