/**
 * The Wallet SDK's configuration for a node in LocalNet's layout, as its documented examples
 * configure LocalNet (docs/wallet-integration-guide/examples: the self-signed `unsafe` token of
 * `ledger-api-user` with LocalNet's audience and an empty scope, the registry through the
 * validator's scan proxy), with only the ports shifted; shared by the localnet-sdk*.test.ts files.
 */
import { CustomLogAdapter, SDK, type TokenProviderConfig } from "@canton-network/wallet-sdk"
import { Socket } from "@effect/platform"
import { Packages } from "@sandnet/engine"
import { zipSync } from "fflate"
import { NodeSocket } from "@effect/platform-node"
import { Effect } from "effect"
import dns from "node:dns"
import type { LocalNetNode } from "./localnet-support.ts"

// Errors only: the SDK logs every token it signs at level info.
export const quietLogs = new CustomLogAdapter((level: string, ctx: unknown, message?: string) => {
  if (level === "error") console.error(message, ctx)
})

/** LocalNet's self-signed token config for a user (the examples' TOKEN_PROVIDER_CONFIG_DEFAULT for `ledger-api-user`). */
export const selfSignedAuth = (user: string = "ledger-api-user"): TokenProviderConfig => ({
  method: "self_signed",
  issuer: "unsafe-auth",
  credentials: { clientId: user, clientSecret: "unsafe", audience: "https://canton.network.global", scope: "" }
})

export const sdkConfig = (node: LocalNetNode, user?: string) => {
  const auth = selfSignedAuth(user)
  const validatorUrl = new URL(`http://localhost:${node.ports.validator}/api/validator`)
  const registryUrl = new URL(`${validatorUrl.href}/v0/scan-proxy`)
  // scan.localhost does not resolve on every machine; the flows tested do not read scan directly.
  const scanApiUrl = new URL(`http://scan.localhost:${node.ports.scan}/api/scan`)
  return {
    auth,
    ledgerClientUrl: new URL(`http://localhost:${node.ports.appUserLedger}`),
    token: { validatorUrl, registries: [registryUrl], auth },
    amulet: { validatorUrl, scanApiUrl, auth, registryUrl },
    logAdapter: quietLogs,
    registryUrl
  }
}

/** The SDK as the examples create it (ledger, token and amulet namespaces) for `ledger-api-user` or another user. */
export const connectSdk = async (node: LocalNetNode, user?: string) => {
  const config = sdkConfig(node, user)
  return shortFeaturedAppLookups(
    await SDK.create({ auth: config.auth, ledgerClientUrl: config.ledgerClientUrl, token: config.token, amulet: config.amulet, logAdapter: config.logAdapter })
  )
}

/** The pause between the SDK's featured app right lookups in the tests (the SDK's own: 1 s, then 5 s). */
export const FEATURED_APP_LOOKUP_DELAY_MS = 100

type FeaturedAppLookup = (options: { readonly partyId: string; readonly maxRetries?: number; readonly delayMs?: number }) => Promise<unknown>

/**
 * `amulet.featuredApp.grant()` first looks the validator's right up 20 times, 1 s apart (hard-coded,
 * for a scan that lags), before it grants the right and looks it up again (10 times, 5 s apart by
 * default): 20 s of waiting per grant on a node whose scan proxy answers at once. The SDK still makes
 * every lookup, the grant and the lookup after it; only its pauses between lookups are
 * FEATURED_APP_LOOKUP_DELAY_MS.
 */
export const shortFeaturedAppLookups = <S extends { readonly amulet: object }>(sdk: S): S => {
  const amulet = sdk.amulet as unknown as { lookUpFeaturedAppRights: FeaturedAppLookup & { readonly short?: true } }
  if (amulet.lookUpFeaturedAppRights.short === true) return sdk
  const lookUp = amulet.lookUpFeaturedAppRights.bind(amulet)
  amulet.lookUpFeaturedAppRights = Object.assign(
    (options: Parameters<FeaturedAppLookup>[0]) => lookUp({ ...options, delayMs: Math.min(options.delayMs ?? FEATURED_APP_LOOKUP_DELAY_MS, FEATURED_APP_LOOKUP_DELAY_MS) }),
    { short: true as const }
  )
  return sdk
}

/** The pause after the SDK's check that a new external party exists (the SDK's own: 2 s), in the tests. */
export const PARTY_CHECK_PAUSE_MS = 50

type PartyWait = (this: unknown, userId: string, partyId: string, maxTries?: number, retryIntervalMs?: number) => Promise<void>

/**
 * An external party's `execute()` (the SDK's SignedPartyCreationService) checks that the new party
 * exists and then pauses 2 s, found or not (waitForPartyAndGrantUserRights), before it grants the
 * user the party's rights: 2 s per external party on a node where the party exists at once. The
 * class is not exported: its prototype is reached through a builder's `sign` on a creation that never
 * resolves (no request is made), and patched once per process: the SDK still checks and grants as
 * before, with PARTY_CHECK_PAUSE_MS between checks.
 */
const shortPartyChecks = (prepared: object): void => {
  const sign = (Object.getPrototypeOf(prepared) as { sign?: (this: unknown, key: string) => object }).sign
  if (sign === undefined) throw new Error("the Wallet SDK's party creation has no sign(): see shortPartyChecks")
  const signed = Object.getPrototypeOf(sign.call({ ctx: { logger: { debug: () => undefined } }, partyCreationPromise: new Promise(() => undefined) }, "")) as {
    waitForPartyAndGrantUserRights?: PartyWait & { readonly short?: true }
  }
  const wait = signed.waitForPartyAndGrantUserRights
  if (wait === undefined) throw new Error("the Wallet SDK's party creation has no waitForPartyAndGrantUserRights: see shortPartyChecks")
  if (wait.short === true) return
  signed.waitForPartyAndGrantUserRights = Object.assign(
    function (this: unknown, userId: string, partyId: string, maxTries?: number, retryIntervalMs?: number) {
      return wait.call(this, userId, partyId, maxTries, Math.min(retryIntervalMs ?? PARTY_CHECK_PAUSE_MS, PARTY_CHECK_PAUSE_MS))
    },
    { short: true as const }
  )
}

type SdkCreate = ((...args: Array<unknown>) => Promise<unknown>) & { readonly short?: true }

/**
 * Every SDK the tests create (SDK.create, patched once per process) pauses briefly where the SDK
 * pauses for a slow network: between featured app right lookups (shortFeaturedAppLookups) and after
 * a new external party's existence check (shortPartyChecks). Nothing the SDK does is left out.
 */
export const shortSdkPauses = (): void => {
  const factory = SDK as unknown as { create: SdkCreate }
  const create = factory.create
  if (create.short === true) return
  factory.create = Object.assign(
    async (...args: Array<unknown>) => {
      const sdk = (await create.apply(SDK, args)) as { readonly amulet?: object; readonly party?: { readonly external?: { create: (...a: Array<unknown>) => object } } }
      if (sdk.amulet !== undefined) shortFeaturedAppLookups(sdk as { readonly amulet: object })
      const external = sdk.party?.external
      if (external !== undefined) {
        const createParty = external.create.bind(external)
        external.create = (...a: Array<unknown>) => {
          const prepared = createParty(...a)
          shortPartyChecks(prepared)
          return prepared
        }
      }
      return sdk
    },
    { short: true as const }
  )
}

/**
 * The SDK's event streams use the global WebSocket, which Node has from version 22 on; on older
 * Nodes the tests lend it the platform's Node implementation.
 */
export const ensureGlobalWebSocket = () => {
  if ("WebSocket" in globalThis) return
  const make = Effect.runSync(Effect.provide(Socket.WebSocketConstructor, NodeSocket.layerWebSocketConstructor))
  const NodeWebSocket = function (url: string, protocols?: string | Array<string>) {
    return make(url, protocols)
  } as unknown as typeof globalThis.WebSocket
  Object.assign(NodeWebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 })
  Object.assign(globalThis, { WebSocket: NodeWebSocket })
}

/**
 * What the SDK expects of its environment that Node 20 and this machine lack: `Object.groupBy`
 * (Node 21; the SDK's utxos.merge groups holdings with it), `Set.prototype.union` (Node 22; the
 * SDK's ACS reader, which delegatedMerge uses, merges archived contract ids with it) and a name `scan.localhost` that resolves
 * to the loopback address (LocalNet's docs add an /etc/hosts line; the tests resolve it in-process).
 */
export const ensureSdkEnvironment = () => {
  shortSdkPauses()
  ensureGlobalWebSocket()
  if (!("groupBy" in Object)) {
    const groupBy = <T>(items: Iterable<T>, key: (item: T, index: number) => PropertyKey) => {
      const groups: Record<PropertyKey, Array<T>> = Object.create(null)
      let i = 0
      for (const item of items) (groups[key(item, i++)] ??= []).push(item)
      return groups
    }
    Object.assign(Object, { groupBy })
  }
  if (!("union" in Set.prototype)) {
    const union = function <T>(this: ReadonlySet<T>, other: Iterable<T>): Set<T> {
      return new Set([...this, ...other])
    }
    Object.defineProperty(Set.prototype, "union", { value: union, writable: true, configurable: true })
  }
  const lookup = dns.lookup as unknown as { readonly scanLocalhost?: true } & ((hostname: string, ...rest: Array<unknown>) => void)
  if (lookup.scanLocalhost === true) return
  const resolving = Object.assign(
    function (this: unknown, hostname: string, ...rest: Array<unknown>) {
      return lookup.call(this, hostname === "scan.localhost" ? "127.0.0.1" : hostname, ...rest)
    },
    { scanLocalhost: true as const }
  )
  Object.assign(dns, { lookup: resolving })
}

/** The SDK's ACS reader as it is at run time (its published types do not resolve readJsContracts here). */
export type JsContractReader = {
  readJsContracts(options: { parties: Array<string>; templateIds: Array<string>; filterByParty: boolean }): Promise<Array<{ contractId: string; createArgument: unknown }>>
}


// ArchivePayload { minor = "1" (3), daml_lf_2 = <a Package> (4) }: a Daml-LF 2.1 package.
const DAML_LF_PAYLOAD = Uint8Array.of(0x1a, 0x01, 0x31, 0x22, 0x02, 0x08, 0x01)

/** A DAR of one Daml-LF archive laid out as `daml build` names it: `<name>-<version>-<id>/<name>-<version>-<id>.dalf`. */
export const damlLfDarNamed = (name: string, version: string) => {
  const packageId = Packages.packageIdOf(DAML_LF_PAYLOAD)
  const path = `${name}-${version}-${packageId}/${name}-${version}-${packageId}.dalf`
  const manifest = Packages.writeManifest([
    ["Manifest-Version", "1.0"],
    ["Main-Dalf", path],
    ["Dalfs", path],
    ["Format", "daml-lf"]
  ])
  const archive = Packages.encodeArchive({ hashFunction: 0, payload: DAML_LF_PAYLOAD, hash: packageId })
  return Buffer.from(zipSync({ [Packages.MANIFEST_PATH]: manifest, [path]: archive }))
}
