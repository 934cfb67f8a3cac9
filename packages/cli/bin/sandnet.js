#!/usr/bin/env node
// The `sandnet` command: runs the bundle built by bin/build.mjs, rebuilding it first when a source
// file is newer (so the command always runs the current sources).
import { pathToFileURL } from "node:url"
import { buildBundle, bundlePath, isStale } from "./build.mjs"
import { buildWeb, webIsStale } from "../../web/build.mjs"

if (isStale()) await buildBundle()
if (webIsStale()) await buildWeb()
await import(pathToFileURL(bundlePath).href)
