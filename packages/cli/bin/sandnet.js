#!/usr/bin/env node
// The `sandnet` command: runs the bundle built by bin/build.mjs, rebuilding it first when a source
// file is newer (so the command always runs the current sources). The check only stats files; the
// bundler is loaded when a rebuild is due. `sandnet token` runs its own small bundle.
import * as module from "node:module"
import { pathToFileURL } from "node:url"
import { isStale, tokenBundlePath, webIsStale } from "./stale.mjs"

// Node 22.1 and later keep the compiled code of the modules on disk for the next start (start-up is
// mostly compiling the bundle); earlier versions have no such cache and skip this.
module.enableCompileCache?.()

const command = process.argv[2]
if (isStale()) await (await import("./build.mjs")).buildBundle()
if (command !== "token" && webIsStale()) await (await import("../../web/build.mjs")).buildWeb()
// the token bundle answers when it understands the arguments; everything else (and --help and
// mistakes of token) runs in the command line's script, compiled with its code cache (script-cached.mjs)
const done = command === "token" && (await import(pathToFileURL(tokenBundlePath).href)).runToken(process.argv.slice(3))
if (!(await done)) await (await import("./script-cached.mjs")).runCommandLineCached(process.argv.slice(2))
