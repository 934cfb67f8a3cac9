/** The `sandnet` command line's entry in the ES module bundle (dist/sandnet.mjs): command-line.ts. */
import { runCommandLine } from "./command-line.ts"

await runCommandLine(process.argv.slice(2))
