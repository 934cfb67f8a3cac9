/** What the memory benches read: the heap, RSS and external memory after a full garbage collection. */
import * as fs from "node:fs"
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

/** V8 reserves each WebAssembly memory 8 GiB of address space: its pages, then an inaccessible guard region. */
const WASM_RESERVATION = 8 * 1024 ** 3

interface Mapping {
  readonly start: number
  readonly end: number
  readonly access: string
  rss: number
}

/**
 * The resident part of this process's WebAssembly memories (PGlite's PostgreSQL, in its thread),
 * from Linux's /proc/self/smaps: a readable and writable mapping followed at once by an
 * inaccessible one, the two making V8's reservation. It is in the RSS, but in no heap figure of
 * this isolate. Undefined where /proc cannot be read.
 */
const wasmResident = (): number | undefined => {
  let text: string
  try {
    text = fs.readFileSync("/proc/self/smaps", "utf8")
  } catch {
    return undefined
  }
  const mappings: Array<Mapping> = []
  for (const line of text.split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line)
    if (range !== null) mappings.push({ start: parseInt(range[1]!, 16), end: parseInt(range[2]!, 16), access: range[3]!, rss: 0 })
    else if (line.startsWith("Rss:") && mappings.length > 0) mappings[mappings.length - 1]!.rss = Number(/(\d+)/.exec(line)![1]) * 1024
  }
  let resident = 0
  for (let i = 0; i + 1 < mappings.length; i++) {
    const [pages, guard] = [mappings[i]!, mappings[i + 1]!]
    const reserved = guard.end - pages.start
    if (pages.access.startsWith("rw") && guard.access.startsWith("---") && pages.end === guard.start && reserved >= WASM_RESERVATION && reserved < 2 * WASM_RESERVATION) resident += pages.rss
  }
  return resident
}

/** The heap, RSS and external memory after a full garbage collection, and the resident WebAssembly memory. */
export const sample = () => {
  collect()
  const m = process.memoryUsage()
  return { heap: m.heapUsed, rss: m.rss, external: m.external, wasm: wasmResident() }
}
