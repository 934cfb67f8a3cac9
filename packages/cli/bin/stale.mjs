// Whether the built command (packages/cli/dist) or the web pages (packages/web/dist) are older than
// their sources. Runs on every `sandnet` start, so it only stats files (a few milliseconds): the
// bundler is imported only when something must be rebuilt.
import { readdirSync, statSync } from "node:fs"
import { dirname, join, sep } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const packages = join(here, "..", "..")
export const bundlePath = join(here, "..", "dist", "sandnet.mjs")
export const tokenBundlePath = join(here, "..", "dist", "token.mjs")
export const scriptPath = join(here, "..", "dist", "sandnet.cjs")
const webPage = join(packages, "web", "dist", "index.html")

const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0

/** The newest modification time of the files under dir that `wanted` accepts (0 when none). */
const newestUnder = (dir, wanted) => {
  let newest = 0
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const entry of entries) {
    // plain concatenation: path.join's normalization of ~700 paths was most of this check's time
    const path = `${dir}${sep}${entry.name}`
    if (entry.isDirectory()) newest = Math.max(newest, newestUnder(path, wanted))
    else if (wanted(entry.name)) newest = Math.max(newest, mtime(path))
  }
  return newest
}

const isTypeScript = (name) => name.endsWith(".ts")

/** The newest TypeScript source of the packages the command bundles (the web pages excepted). */
export const newestSource = () => {
  let newest = mtime(join(here, "build.mjs"))
  for (const pkg of readdirSync(packages)) if (pkg !== "web") newest = Math.max(newest, newestUnder(join(packages, pkg, "src"), isTypeScript))
  return newest
}

export const isStale = () => {
  const built = Math.min(mtime(bundlePath), mtime(tokenBundlePath), mtime(scriptPath))
  return built === 0 || built < newestSource()
}

export const webIsStale = () => {
  const built = mtime(webPage)
  return built === 0 || built < Math.max(mtime(join(packages, "web", "build.mjs")), newestUnder(join(packages, "web", "src"), () => true))
}
