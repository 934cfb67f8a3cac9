/**
 * Ratchets on the shape of the code, read from the sources with TypeScript's own parser:
 * - no file under packages/<pkg>/src over 700 lines;
 * - at most MAX_LONG_FUNCTIONS functions over 70 lines (the count may only go down);
 * - the deterministic packages (engine, core) never touch the world: no clock, randomness, timers,
 *   process, file system or network (everything of that kind enters through Effect services).
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const MAX_FILE_LINES = 700
const MAX_FUNCTION_LINES = 70
/** Lower it whenever a long function is split; never raise it. */
const MAX_LONG_FUNCTIONS = 1

const packagesRoot = fileURLToPath(new URL("../../", import.meta.url))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

const packageNames = readdirSync(packagesRoot).filter((name) => {
  try {
    return statSync(join(packagesRoot, name, "src")).isDirectory()
  } catch {
    return false
  }
})

const parse = (file: string): ts.SourceFile => ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)

const linesOf = (source: ts.SourceFile, node: ts.Node): number =>
  source.getLineAndCharacterOfPosition(node.end).line - source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1

const nameOf = (node: ts.FunctionLikeDeclaration): string => {
  if (node.name !== undefined) return node.name.getText()
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText()
  return "<anonymous>"
}

/**
 * A generator passed to a call (`Effect.gen(function* () {...})`) that is the body of an enclosing
 * long function is that function's body, not a second function: it is counted once, with it.
 */
const isBodyOfLongFunction = (node: ts.FunctionLikeDeclaration, source: ts.SourceFile): boolean => {
  if (!(ts.isFunctionExpression(node) && node.asteriskToken !== undefined && ts.isCallExpression(node.parent))) return false
  for (let up: ts.Node | undefined = node.parent; up !== undefined; up = up.parent) {
    if (ts.isFunctionLike(up) && (up as ts.FunctionLikeDeclaration).body !== undefined) return linesOf(source, up) > MAX_FUNCTION_LINES
  }
  return false
}

/** The functions of a source over MAX_FUNCTION_LINES, as `<line> <name> (<n> lines)`. */
const longFunctionsOf = (source: ts.SourceFile): Array<string> => {
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) {
      const fn = node as ts.FunctionLikeDeclaration
      const lines = linesOf(source, fn)
      if (fn.body !== undefined && lines > MAX_FUNCTION_LINES && !isBodyOfLongFunction(fn, source)) {
        found.push(`${source.getLineAndCharacterOfPosition(fn.getStart(source)).line + 1} ${nameOf(fn)} (${lines} lines)`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Globals the deterministic packages must not touch, and the modules they must not import. */
const BANNED_CALLS = new Set(["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate", "queueMicrotask", "fetch"])
const BANNED_MEMBERS = new Set(["Date.now", "Math.random", "performance.now"])
const BANNED_IDENTIFIERS = new Set(["process", "performance"])
const BANNED_MODULES = /^(node:)?(fs|fs\/promises|child_process|net|http|https|http2|dgram|os|worker_threads|timers|timers\/promises|perf_hooks)$/

/** Every place a source touches the world, as `<line> <what>`. */
const worldAccessOf = (source: ts.SourceFile): Array<string> => {
  const found: Array<string> = []
  const at = (node: ts.Node, what: string) => found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${what}`)
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      const target = (node.moduleSpecifier as ts.StringLiteral).text
      if (BANNED_MODULES.test(target)) at(node, `imports ${target}`)
    } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && BANNED_CALLS.has(node.expression.text)) {
      at(node, `calls ${node.expression.text}`)
    } else if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && BANNED_MEMBERS.has(`${node.expression.text}.${node.name.text}`)) {
      at(node, node.getText(source))
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "Date" && (node.arguments?.length ?? 0) === 0) {
      at(node, "new Date() without an argument")
    } else if (ts.isIdentifier(node) && BANNED_IDENTIFIERS.has(node.text) && isGlobalReference(node)) {
      at(node, `uses ${node.text}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** An identifier that names a global (not a property name, a declaration or a member access). */
const isGlobalReference = (node: ts.Identifier): boolean => {
  const parent = node.parent
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent)) && parent.name === node) return false
  if ((ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isBindingElement(parent)) && parent.name === node) return false
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent) || ts.isShorthandPropertyAssignment(parent)) return false
  if (ts.isQualifiedName(parent) || ts.isTypeReferenceNode(parent)) return false
  return true
}

describe("ratchets", () => {
  it(`no source file is over ${MAX_FILE_LINES} lines`, () => {
    const over = packageNames.flatMap((pkg) =>
      sourceFiles(join(packagesRoot, pkg, "src"))
        .map((file) => ({ file, lines: readFileSync(file, "utf8").split("\n").length }))
        .filter(({ lines }) => lines > MAX_FILE_LINES)
        .map(({ file, lines }) => `${relative(packagesRoot, file)} (${lines} lines)`)
    )
    expect(over).toEqual([])
  })

  it(`at most ${MAX_LONG_FUNCTIONS} functions are over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = packageNames.flatMap((pkg) => sourceFiles(join(packagesRoot, pkg, "src")).flatMap((file) => longFunctionsOf(parse(file)).map((at) => `${relative(packagesRoot, file)}:${at}`)))
    expect(long.length, long.join("\n")).toBeLessThanOrEqual(MAX_LONG_FUNCTIONS)
  })

  for (const pkg of ["core", "engine"]) {
    it(`${pkg} touches no clock, randomness, timer, process, file system or network`, () => {
      const found = sourceFiles(join(packagesRoot, pkg, "src")).flatMap((file) => worldAccessOf(parse(file)).map((at) => `${relative(packagesRoot, file)}:${at}`))
      expect(found).toEqual([])
    })
  }
})

describe("the ratchets catch what they are for", () => {
  it("a banned import, member, call, global and argument-less Date are each reported; a method named fetch is not", () => {
    const text = [
      'import { readFileSync } from "node:fs"',
      "const now = Date.now()",
      "const r = Math.random()",
      "setTimeout(() => undefined, 1)",
      "const argv = process.argv",
      "const today = new Date()",
      "const fine = new Date(0).toISOString() + ctx.fetch(x) + options.process"
    ].join("\n")
    const found = worldAccessOf(ts.createSourceFile("probe.ts", text, ts.ScriptTarget.ES2022, true))
    expect(found).toEqual(["1 imports node:fs", "2 Date.now", "3 Math.random", "4 calls setTimeout", "5 uses process", "6 new Date() without an argument"])
  })

  it("a generator that is the body of a long function counts once with it", () => {
    const body = Array.from({ length: 80 }, (_, i) => `  const x${i} = yield* Effect.succeed(${i})`).join("\n")
    const text = `const long = () => Effect.gen(function* () {\n${body}\n})`
    const counted = longFunctionsOf(ts.createSourceFile("probe.ts", text, ts.ScriptTarget.ES2022, true))
    expect(counted).toEqual(["1 long (82 lines)"])
  })
})
