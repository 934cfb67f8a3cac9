/** What the memory benches read: the heap, RSS and external memory after a full garbage collection. */
import * as v8 from "node:v8"
import * as vm from "node:vm"

/** Node's `gc()`, made available without restarting the process with --expose-gc. */
const collect = (() => {
  let gc: (() => void) | undefined
  return (): void => {
    if (gc === undefined) {
      v8.setFlagsFromString("--expose-gc")
      gc = vm.runInNewContext("gc") as () => void
    }
    gc()
    gc()
  }
})()

/** The heap, RSS and external memory after a full garbage collection. */
export const sample = () => {
  collect()
  const m = process.memoryUsage()
  return { heap: m.heapUsed, rss: m.rss, external: m.external }
}
