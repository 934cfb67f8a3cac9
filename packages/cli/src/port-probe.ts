/**
 * A start asks for its ports before it builds anything: a port in use is then said at once (not
 * after the store opened and the engine started), and the node's listener does not fail while
 * other layers of the node are still being built. Such a failure in the middle of the build left
 * `sandnet start` hanging on its way out in about one run of ten under the time-sliced scheduler
 * (node/runtime/scheduler.ts): the layer build's concurrent fibers never reported their
 * interruption. The node's own listen still reports a port taken in between (describeFailure).
 */
import { Effect, Schema } from "effect"
import * as net from "node:net"

/** Listening on a port was refused (`code` is Node's: EADDRINUSE, EACCES, ...). */
export class PortUnavailable extends Schema.TaggedError<PortUnavailable>()("PortUnavailable", {
  message: Schema.String,
  code: Schema.String
}) {}

/** Succeeds when `host:port` can be listened on (port 0 always can); the probe's listener is closed again. */
export const probePort = (host: string, port: number): Effect.Effect<void, PortUnavailable> =>
  port === 0
    ? Effect.void
    : Effect.async<void, PortUnavailable>((resume) => {
        const probe = net.createServer()
        probe.once("error", (error: NodeJS.ErrnoException) =>
          resume(Effect.fail(new PortUnavailable({ message: error.message, code: error.code ?? "EUNKNOWN" })))
        )
        probe.listen({ port, host, exclusive: true }, () => probe.close(() => resume(Effect.void)))
      })

/** Every port of the list, in order; the first refused one fails. */
export const probePorts = (host: string, ports: ReadonlyArray<number>): Effect.Effect<void, PortUnavailable> =>
  Effect.forEach(ports, (port) => probePort(host, port), { discard: true })
