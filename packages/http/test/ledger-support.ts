/**
 * Helpers of the ledger surface tests: a node with its engine on a manual clock (as `sandnet
 * start` wires it, with the NodeRuntime provided to the routes), users with rights, parties, and
 * command bodies for the coin model's TransferOffer (a contract a party creates alone).
 */
import { Socket } from "@effect/platform"
import { NodeSocket } from "@effect/platform-node"
import { SIMULATION_EPOCH, type ActiveContract } from "@sandnet/core"
import { dsoReference, LedgerApi, TransferOffer, type CoinNetworkConfig } from "@sandnet/engine"
import { Context, Deferred, Effect, Either, Exit, Layer, Scope } from "effect"
import * as Node from "@sandnet/node"
import * as Http from "../src/index.ts"
import { adminToken, call, devToken, type Call } from "./support.ts"

export interface LedgerTestNode {
  readonly url: string
  readonly runtime: Node.NodeRuntimeService
  /** Token of `participant_admin`. */
  readonly admin: string
  readonly close: () => Promise<void>
}

export const startLedgerNode = async (
  options: { readonly ledger?: Partial<Http.LedgerApiSettings>; readonly network?: Partial<CoinNetworkConfig> } = {}
): Promise<LedgerTestNode> => {
  const scope = Effect.runSync(Scope.make())
  const base = Http.layerMemory({ http: { port: 0, logRequests: false } })
  const withRuntime = base.pipe(
    Layer.provideMerge(
      Node.nodeRuntimeLayer({ clock: { _tag: "manual", start: SIMULATION_EPOCH }, ...(options.network === undefined ? {} : { network: options.network }) })
    )
  )
  const layer = withRuntime.pipe(Layer.provideMerge(Http.LedgerApiConfig.layer(options.ledger ?? {})))
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const url = Effect.runSync(Effect.provide(Http.baseUrl, context))
  return {
    url,
    runtime: Context.get(context, Node.NodeRuntime),
    admin: await adminToken(),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

export const post = (node: LedgerTestNode, path: string, token: string | undefined, body: unknown): Promise<Call> =>
  call(`${node.url}${path}`, { method: "POST", token, body })

export const get = (node: LedgerTestNode, path: string, token: string | undefined): Promise<Call> => call(`${node.url}${path}`, { token })

/** Allocates a party on validator1 through the API and returns its id. */
export const allocateParty = async (node: LedgerTestNode, hint: string): Promise<string> => {
  const answer = await post(node, "/v2/parties", node.admin, { partyIdHint: hint })
  if (answer.status !== 200) throw new Error(`allocate ${hint}: ${answer.status} ${answer.text}`)
  return (answer.json as { partyDetails: { party: string } }).partyDetails.party
}

type RightJson = { kind: Record<string, { value: Record<string, string> }> }
export const actAs = (party: string): RightJson => ({ kind: { CanActAs: { value: { party } } } })
export const readAs = (party: string): RightJson => ({ kind: { CanReadAs: { value: { party } } } })
export const readAsAnyParty: RightJson = { kind: { CanReadAsAnyParty: { value: {} } } }

/** Creates a user with rights and returns its dev token. */
export const userWith = async (node: LedgerTestNode, id: string, rights: ReadonlyArray<RightJson>): Promise<string> => {
  const answer = await post(node, "/v2/users", node.admin, { user: { id }, rights })
  if (answer.status !== 200) throw new Error(`create user ${id}: ${answer.status} ${answer.text}`)
  return devToken(id)
}

/** The engine's state, read directly (the DSO party, the sv1 contracts a validator discloses). */
export const engineFacts = (node: LedgerTestNode) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const engine = yield* node.runtime.engine
      const network = engine.network
      const reference = dsoReference(network, engine.clock.now)
      if (reference === undefined) throw new Error("no DSO reference")
      const blob = (contract: ActiveContract) => ({
        templateId: contract.created.templateId,
        contractId: contract.created.contractId,
        createdEventBlob: LedgerApi.createdEventBlob(contract),
        synchronizerId: contract.synchronizerId
      })
      return {
        dso: network.dso,
        synchronizerId: network.synchronizers[0]!.info.synchronizerId,
        participantUid: network.validators[0]!.participant.logic.uid,
        coinRules: reference.coinRules,
        openRound: reference.openRound,
        disclosed: [blob(reference.coinRules), blob(reference.openRound)]
      }
    })
  )

export const TRANSFER_OFFER = TransferOffer.nameReference
export const transferOfferId = () => TransferOffer.templateId

export const offerArguments = (sender: string, receiver: string, dso: string, trackingId: string) => ({
  sender,
  receiver,
  dso,
  amount: { amount: "10.0000000000", unit: "CoinUnit" },
  description: "lunch",
  expiresAt: "2027-01-01T00:00:00.000000Z",
  trackingId
})

export const createOffer = (sender: string, receiver: string, dso: string, trackingId: string) => ({
  CreateCommand: { templateId: TRANSFER_OFFER, createArguments: offerArguments(sender, receiver, dso, trackingId) }
})

export const exercise = (contractId: string, choice: string, choiceArgument: unknown, templateId = TRANSFER_OFFER) => ({
  ExerciseCommand: { templateId, contractId, choice, choiceArgument }
})

/**
 * Opens a websocket on a ledger stream path with the token in Sec-WebSocket-Protocol, sends the
 * request and collects the messages until the node closes the socket (or `count` arrived).
 */
export const websocket = (
  node: LedgerTestNode,
  path: string,
  token: string | undefined,
  request: unknown,
  options: { readonly count?: number } = {}
): Promise<Either.Either<ReadonlyArray<unknown>, string>> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const protocols = token === undefined ? ["daml.ws.auth"] : [`jwt.token.${token}`, "daml.ws.auth"]
        const socket = yield* Socket.makeWebSocket(`${node.url.replace(/^http/, "ws")}${path}`, { protocols })
        const write = yield* socket.writer
        const messages: Array<unknown> = []
        const enough = yield* Deferred.make<void>()
        const decoder = new TextDecoder()
        const run = socket.runRaw(
          (data) => {
            messages.push(JSON.parse(typeof data === "string" ? data : decoder.decode(data)))
            if (options.count !== undefined && messages.length >= options.count) return Deferred.succeed(enough, undefined)
            return Effect.void
          },
          { onOpen: write(JSON.stringify(request)).pipe(Effect.orDie) }
        )
        const outcome = yield* Effect.either(Effect.raceFirst(run, Deferred.await(enough)))
        return Either.isLeft(outcome) ? Either.left(String(outcome.left.reason)) : Either.right(messages)
      })
    ).pipe(Effect.provide(NodeSocket.layerWebSocketConstructor))
  )

export { call, devToken }
