/** Binary search over sorted things, given by index (arrays, archived logs, columns). */

/**
 * The first index in [0, length) where `before` turns false: `before` holds for a prefix of the
 * indexes and not after it (C++'s partition_point). `length` when it holds everywhere.
 */
export const partitionPoint = (length: number, before: (i: number) => boolean): number => {
  let low = 0
  let high = length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (before(mid)) low = mid + 1
    else high = mid
  }
  return low
}
