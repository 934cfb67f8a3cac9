import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * No import circles among the files of a package: relative imports of every kind count (`import`,
 * `import type`, `export ... from`, `import("...")` in types), since a type-only circle still ties
 * the files' designs together. Each circle is reported as its strongly connected component, the
 * files sorted, paths relative to the package's `src`.
 */

const root = fileURLToPath(new URL("../../", import.meta.url))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g

/** The package's files and, for each, the files of the package it imports. */
const importGraph = (src: string): ReadonlyMap<string, ReadonlyArray<string>> => {
  const files = sourceFiles(src)
  const known = new Set(files)
  const graph = new Map<string, ReadonlyArray<string>>()
  for (const file of files) {
    const targets = new Set<string>()
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const target = join(dirname(file), match[1]!)
      if (known.has(target)) targets.add(target)
    }
    graph.set(file, [...targets].sort())
  }
  return graph
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
const cyclesOf = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const out: Array<Array<string>> = []
  const visit = (file: string): void => {
    index.set(file, counter)
    low.set(file, counter)
    counter++
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component: Array<string> = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) out.push(component)
  }
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file)
  return out
}

const packages = readdirSync(root).filter((name) => existsSync(join(root, name, "src")))

describe("import cycles", () => {
  for (const pkg of packages) {
    it(`${pkg} has no import circle among its files`, () => {
      const src = join(root, pkg, "src")
      const cycles = cyclesOf(importGraph(src))
        .map((component) => component.map((file) => relative(src, file)).sort())
        .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0))
      expect(cycles).toEqual([])
    })
  }
})
