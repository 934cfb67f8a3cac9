/**
 * The simulation's only source of randomness: a seeded PRNG (sfc32, seeded by hashing the
 * scenario seed) exposed both as Effect's Random service and as synchronous draws for the link
 * model. Same seed, same sequence, on any machine.
 */
import { Chunk, Effect, Random } from "effect"
import { sha256Hex } from "@sandnet/core"

export class SeededRandom implements Random.Random {
  readonly [Random.RandomTypeId]: Random.RandomTypeId = Random.RandomTypeId
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: string | number) {
    const h = sha256Hex(`sandnet-seed:${seed}`)
    this.a = parseInt(h.slice(0, 8), 16) | 0
    this.b = parseInt(h.slice(8, 16), 16) | 0
    this.c = parseInt(h.slice(16, 24), 16) | 0
    this.d = parseInt(h.slice(24, 32), 16) | 0
    for (let i = 0; i < 12; i++) this.unsafeNext()
  }

  /** A derived, independent stream (e.g. one for the network, one for the workload). */
  fork(label: string): SeededRandom {
    return new SeededRandom(`${this.unsafeNextInt32()}:${label}`)
  }

  private unsafeNextInt32(): number {
    // sfc32
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** Uniform in [0, 1). */
  unsafeNext(): number {
    return this.unsafeNextInt32() / 4294967296
  }

  /** Uniform integer in [min, max] (both inclusive). */
  unsafeInt(min: number, max: number): number {
    return min + Math.floor(this.unsafeNext() * (max - min + 1))
  }

  unsafeChance(p: number): boolean {
    return p > 0 && this.unsafeNext() < p
  }

  /** Exponentially distributed with the given mean (inter-arrival times of a Poisson process). */
  unsafeExponential(mean: number): number {
    return -Math.log(1 - this.unsafeNext()) * mean
  }

  unsafePick<A>(items: ReadonlyArray<A>): A | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.unsafeNext() * items.length)]
  }

  get next(): Effect.Effect<number> {
    return Effect.sync(() => this.unsafeNext())
  }

  get nextBoolean(): Effect.Effect<boolean> {
    return Effect.sync(() => this.unsafeNext() < 0.5)
  }

  get nextInt(): Effect.Effect<number> {
    return Effect.sync(() => this.unsafeNextInt32() | 0)
  }

  nextRange(min: number, max: number): Effect.Effect<number> {
    return Effect.sync(() => min + this.unsafeNext() * (max - min))
  }

  nextIntBetween(min: number, max: number): Effect.Effect<number> {
    // Effect's contract: min inclusive, max exclusive.
    return Effect.sync(() => min + Math.floor(this.unsafeNext() * (max - min)))
  }

  shuffle<A>(elements: Iterable<A>): Effect.Effect<Chunk.Chunk<A>> {
    return Effect.sync(() => {
      const items = [...elements]
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(this.unsafeNext() * (i + 1))
        ;[items[i], items[j]] = [items[j]!, items[i]!]
      }
      return Chunk.fromIterable(items)
    })
  }
}
