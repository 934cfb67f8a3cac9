/**
 * The scheduler of a serving node's fibers (`sandnet start`): Effect's default scheduler resumes
 * fibers through microtasks (up to 2048 in a row before a timer), so a node busy with writes gives
 * the event loop's poll phase, where requests are read and the read table answers them
 * (read-routes.ts in @sandnet/http), a turn only rarely: a read waits behind tens of milliseconds of
 * write work. This one runs queued fiber tasks for a slice of wall-clock time, then continues from
 * `setImmediate`, so that pending I/O is served between slices; a fiber running past its slice's end
 * yields.
 *
 * Only the wall-clock interleaving of fibers changes, never what they compute: the engine's logic
 * is deterministic by construction and simulations (the sim package) do not run on it.
 *
 * It gives the event loop turns during a start too: @effect/platform's server listens before it
 * attaches its request listener, and a request that came in between was dropped by Node and never
 * answered (`sandnet bench --only restart` hung on it). @sandnet/http's server.ts holds such
 * requests until the listener is there (`holdEarlyRequests`; cli test start-early-request).
 */
import { FiberRef, type Scheduler } from "effect"

/** How long one slice of fiber work may run before the event loop gets a turn. */
export const NODE_SCHEDULER_SLICE_MILLIS = 1
/** A running fiber reads the clock every this many operations (past its slice's end it yields). */
export const NODE_SCHEDULER_OPS_BETWEEN_CLOCK_READS = 64
/**
 * Fiber tasks waiting for a slice beyond which the scheduler stops giving the event loop turns
 * (it drains without slicing until the queue is below the limit again): new requests then wait in
 * the sockets instead of adding fibers. A task is a fiber's resumption (one per fiber at most).
 */
export const NODE_SCHEDULER_MAX_QUEUED_TASKS = 100_000

/**
 * The scheduling priority of the engine's own work: an exclusive section's fibers (context.ts) and
 * the journal committer's (committer.ts). This scheduler runs lower numbers first; Effect's default
 * scheduler, which simulations use, ignores priorities. Reads that come while an operation holds
 * the engine wait for it to end, then for the commit of what they saw, so both run ahead of the
 * fibers decoding and encoding other requests: an operation holds the engine for about its own CPU
 * time instead of that time interleaved with everything else the node does.
 */
export const ENGINE_OPERATION_PRIORITY = -1

/** One priority's tasks, first in first out. */
interface Bucket {
  readonly priority: number
  tasks: Array<Scheduler.Task>
  head: number
}

export class TimeSlicedScheduler implements Scheduler.Scheduler {
  /** Ascending priority (Effect's lower numbers first, as its own scheduler runs them). */
  private readonly buckets: Array<Bucket> = []
  private queued = 0
  private running = false
  /** The end of the current slice; Infinity while nothing waits. */
  private deadline = Number.POSITIVE_INFINITY

  constructor(
    private readonly sliceMillis: number = NODE_SCHEDULER_SLICE_MILLIS,
    private readonly maxQueued: number = NODE_SCHEDULER_MAX_QUEUED_TASKS
  ) {}

  /** Tasks waiting for a slice (for tests and diagnostics). */
  get size(): number {
    return this.queued
  }

  scheduleTask(task: Scheduler.Task, priority: number): void {
    this.bucketOf(priority).tasks.push(task)
    this.queued += 1
    if (!this.running) {
      this.running = true
      queueMicrotask(this.drain)
    }
  }

  shouldYield(fiber: Parameters<Scheduler.Scheduler["shouldYield"]>[0]): number | false {
    const ops = fiber.currentOpCount
    const due =
      ops > fiber.getFiberRef(FiberRef.currentMaxOpsBeforeYield) ||
      (ops % NODE_SCHEDULER_OPS_BETWEEN_CLOCK_READS === 0 && performance.now() >= this.deadline)
    return due ? fiber.getFiberRef(FiberRef.currentSchedulingPriority) : false
  }

  private bucketOf(priority: number): Bucket {
    const buckets = this.buckets
    let at = 0
    while (at < buckets.length && buckets[at]!.priority < priority) at += 1
    const found = buckets[at]
    if (found !== undefined && found.priority === priority) return found
    const bucket: Bucket = { priority, tasks: [], head: 0 }
    buckets.splice(at, 0, bucket)
    return bucket
  }

  /** The first task of the lowest priority waiting, or undefined. */
  private next(): Scheduler.Task | undefined {
    for (const bucket of this.buckets) {
      if (bucket.head < bucket.tasks.length) {
        const task = bucket.tasks[bucket.head]!
        bucket.head += 1
        if (bucket.head === bucket.tasks.length) {
          bucket.tasks = []
          bucket.head = 0
        }
        this.queued -= 1
        return task
      }
    }
    return undefined
  }

  private readonly drain = (): void => {
    this.deadline = performance.now() + this.sliceMillis
    for (let task = this.next(); task !== undefined; task = this.next()) {
      task()
      if (this.queued > 0 && this.queued < this.maxQueued && performance.now() >= this.deadline) {
        setImmediate(this.drain)
        return
      }
    }
    this.deadline = Number.POSITIVE_INFINITY
    this.running = false
  }
}

/** The scheduler of a serving node's fibers (one per process: the slices are the event loop's). */
export const nodeScheduler: TimeSlicedScheduler = new TimeSlicedScheduler()
