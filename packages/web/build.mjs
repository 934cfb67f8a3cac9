#!/usr/bin/env node
// Builds the web pages (packages/web/dist): one ES module and one style sheet under dist/assets/
// and the page dist/index.html that loads them. Everything the pages need is in the bundle (Preact,
// uPlot and its styles): the node serves it and nothing is fetched from elsewhere. Called by the
// CLI's build (packages/cli/bin/build.mjs) at install time, and again when a page source is newer.
import { build } from "esbuild"
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const src = join(here, "src")
export const webDist = join(here, "dist")
const pagePath = join(webDist, "index.html")

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Sandnet</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
<script>try{var t=localStorage.getItem("sandnet.theme");if(t)document.documentElement.dataset.theme=t}catch(e){}</script>
</head>
<body>
<div id="app"></div>
<script type="module" src="/assets/app.js"></script>
</body>
</html>
`

const newestSource = () => {
  let newest = statSync(fileURLToPath(import.meta.url)).mtimeMs
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else newest = Math.max(newest, statSync(path).mtimeMs)
    }
  }
  walk(src)
  return newest
}

export const webIsStale = () => !existsSync(pagePath) || statSync(pagePath).mtimeMs < newestSource()

/** Builds in memory and renames into place, so a running node never serves a half-written file. */
export const buildWeb = async () => {
  const result = await build({
    entryPoints: { app: join(src, "main.tsx") },
    outdir: join(webDist, "assets"),
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    sourcemap: "linked",
    loader: { ".css": "css" },
    logLevel: "error",
    write: false
  })
  const files = [...result.outputFiles.map((f) => [f.path, f.contents]), [pagePath, new TextEncoder().encode(PAGE)]]
  for (const [path, contents] of files) {
    mkdirSync(dirname(path), { recursive: true })
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, contents)
    renameSync(temporary, path)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildWeb()
