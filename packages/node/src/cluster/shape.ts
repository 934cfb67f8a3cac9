/**
 * The network's shape in a cluster (how many super validators and validators): one value every
 * process must share. The node that runs the synchronizers (the first super validator, sv1)
 * decides it; every other process waits for its decision instead of racing to propose its own, so
 * processes started at the same moment agree whatever order they reach the database in. A process
 * whose own flags say otherwise, or whose node is not part of the decided shape, refuses to start
 * with one line that says what to do.
 */
import { defaultCoinNetworkConfig, type CoinNetworkConfig } from "@sandnet/engine"
import type { ClusterTransportService, StorageError } from "@sandnet/store"
import { Duration, Effect, Schema } from "effect"

/** The node that runs the synchronizers and decides the shape (cluster/link.ts: the first super validator). */
export const SHAPE_DECIDER = "sv1"
/** How long another node waits for the decider to start. */
export const SHAPE_WAIT = Duration.minutes(2)
const SHAPE_POLL = Duration.millis(200)
const AGREED_KEY = "network"

/** This process's view of the cluster's shape: what its flags said, if they said anything. */
export interface ShapeRequest {
  readonly cluster: string
  readonly node: string
  readonly superValidators: number | undefined
  readonly validators: number | undefined
}

/** The cluster's shape and this process's node or flags disagree. */
export class ClusterShapeMismatch extends Schema.TaggedError<ClusterShapeMismatch>()("ClusterShapeMismatch", {
  message: Schema.String
}) {}

const proposalOf = (request: ShapeRequest): CoinNetworkConfig => ({
  ...defaultCoinNetworkConfig,
  name: request.cluster,
  superValidators: request.superValidators ?? 1,
  validators: request.validators ?? 1
})

const describe = (config: CoinNetworkConfig): string =>
  `${config.superValidators} super validator${config.superValidators === 1 ? "" : "s"} and ${config.validators} validator${config.validators === 1 ? "" : "s"}`

const nodesOf = (config: CoinNetworkConfig): ReadonlyArray<string> => [
  ...Array.from({ length: config.superValidators }, (_, i) => `sv${i + 1}`),
  ...Array.from({ length: config.validators }, (_, i) => `validator${i + 1}`)
]

/** Checks this process's flags and node against the agreed shape. */
export const checkShape = (request: ShapeRequest, agreed: CoinNetworkConfig): Effect.Effect<CoinNetworkConfig, ClusterShapeMismatch> => {
  const given = [
    ["--super-validators", request.superValidators, agreed.superValidators],
    ["--validators", request.validators, agreed.validators]
  ] as const
  const differing = given.filter(([, mine, theirs]) => mine !== undefined && mine !== theirs)
  if (differing.length > 0) {
    const flags = differing.map(([flag, mine]) => `${flag} ${mine}`).join(" ")
    return Effect.fail(
      new ClusterShapeMismatch({
        message: `cluster ${request.cluster} has ${describe(agreed)} (decided by ${SHAPE_DECIDER}), but ${request.node} was started with ${flags}: leave the shape flags out of the other nodes' commands`
      })
    )
  }
  if (!nodesOf(agreed).includes(request.node)) {
    return Effect.fail(
      new ClusterShapeMismatch({
        message: `cluster ${request.cluster} has ${describe(agreed)} (${nodesOf(agreed).join(", ")}): there is no node ${request.node}; start ${SHAPE_DECIDER} with more (--super-validators / --validators)`
      })
    )
  }
  return Effect.succeed(agreed)
}

const pollAgreed = (transport: ClusterTransportService): Effect.Effect<CoinNetworkConfig, StorageError> =>
  Effect.flatMap(transport.agreed(AGREED_KEY), (found) =>
    found !== undefined ? Effect.succeed(found as CoinNetworkConfig) : Effect.zipRight(Effect.sleep(SHAPE_POLL), Effect.suspend(() => pollAgreed(transport)))
  )

/** Waits for the decider's shape, polling the agreed table. */
const awaitDecision = (transport: ClusterTransportService, request: ShapeRequest): Effect.Effect<CoinNetworkConfig, ClusterShapeMismatch | StorageError> =>
  pollAgreed(transport).pipe(
    Effect.timeoutFail({
      duration: SHAPE_WAIT,
      onTimeout: () =>
        new ClusterShapeMismatch({
          message: `cluster ${request.cluster}: ${SHAPE_DECIDER} (the node that runs the synchronizers and decides the network's shape) did not start within ${Duration.format(SHAPE_WAIT)}; start it`
        })
    })
  )

/** The cluster's shape: decided by sv1's process, awaited by the others, checked against this process's flags. */
export const agreeOnShape = (transport: ClusterTransportService, request: ShapeRequest): Effect.Effect<CoinNetworkConfig, ClusterShapeMismatch | StorageError> =>
  Effect.gen(function* () {
    const agreed =
      request.node === SHAPE_DECIDER
        ? ((yield* transport.agree(AGREED_KEY, proposalOf(request))) as CoinNetworkConfig)
        : yield* awaitDecision(transport, request)
    return yield* checkShape(request, agreed)
  })
