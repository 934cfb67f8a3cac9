/**
 * A serving node compresses its archived history in zlib's thread pool (engine
 * history/archived-log.ts): a segment of 128 entries took 1 to 2 ms of Brotli on the event loop,
 * in a tick that every request waited behind (`node --cpu-prof` of `sandnet bench --only load`:
 * the archive's compression 1.9% of the node's CPU, the memory journal's another 1%, in steps of
 * milliseconds). Writing the entries as JSON stays in the tick: it reads the engine's objects.
 */
import * as zlib from "node:zlib"
import { compressAtOnce, SEGMENT_BROTLI, type SegmentCompressor } from "@sandnet/engine"

export const compressInThreadPool: SegmentCompressor = (bytes, done) =>
  zlib.brotliCompress(bytes, SEGMENT_BROTLI, (error, compressed) => {
    // Not expected (the bytes are in memory); compressing at once is what a failure leaves.
    if (error !== null) compressAtOnce(bytes, done)
    else done(compressed)
  })
