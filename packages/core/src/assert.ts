/**
 * Invariant checks in the spirit of TigerBeetle: assert where state changes and fail loudly.
 * A broken invariant is a defect (a bug in Sandnet), never a user error, so it throws.
 */
export class InvariantViolation extends Error {
  override readonly name = "InvariantViolation"
}

export function invariant(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) {
    throw new InvariantViolation(typeof message === "string" ? message : message())
  }
}

export const unreachable = (value: never, what: string): never => {
  throw new InvariantViolation(`unreachable ${what}: ${JSON.stringify(value)}`)
}
