#!/usr/bin/env node
// The `sandnet` command: runs the bundle built by bin/build.mjs, rebuilding it first when a source
// file is newer (so the command always runs the current sources). The check only stats files; the
// bundler is loaded when a rebuild is due. `sandnet token` runs its own small bundle.
import * as module from "node:module"
import { pathToFileURL } from "node:url"
import { bundlePath, isStale, tokenBundlePath, webIsStale } from "./stale.mjs"

// Node 22.1 and later keep the compiled code of the modules on disk for the next start (start-up is
// mostly compiling the bundle); earlier versions have no such cache and skip this.
module.enableCompileCache?.()

const command = process.argv[2]
if (isStale()) await (await import("./build.mjs")).buildBundle()
if (command !== "token" && webIsStale()) await (await import("../../web/build.mjs")).buildWeb()
// the token bundle and the start script (compiled with its code cache, start-cached.mjs) answer
// when they understand the arguments; --help and mistakes go to the full CLI
const done =
  command === "token"
    ? (await import(pathToFileURL(tokenBundlePath).href)).runToken(process.argv.slice(3))
    : command === "start" && (await import("./start-cached.mjs")).runStartCached(process.argv.slice(3))
if (!(await done)) await import(pathToFileURL(bundlePath).href)
