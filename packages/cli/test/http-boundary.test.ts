/**
 * The HTTP layer does not reach into participant internals: no file under packages/http/src reads
 * a `.logic` member (the participant's ParticipantLogic). HTTP asks the engine's query functions
 * (LedgerApi, ScanApi) or the node, which take the participant handle, so that domain rules live in
 * the engine once. Read with TypeScript's own parser, as the ratchets are.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const httpSrc = fileURLToPath(new URL("../../http/src", import.meta.url))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") || path.endsWith(".tsx") ? [path] : []
  })

/** Every `.logic` member access of a source (`x.logic`, `x?.logic`, `x["logic"]`), as `<line> <text>`. */
const logicAccessesOf = (source: ts.SourceFile): Array<string> => {
  const found: Array<string> = []
  const at = (node: ts.Node) => found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${node.getText(source)}`)
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === "logic") at(node)
    else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === "logic") at(node)
    else if (ts.isBindingElement(node) && (node.propertyName ?? node.name).getText(source) === "logic" && ts.isObjectBindingPattern(node.parent)) at(node)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const parse = (file: string, text: string = readFileSync(file, "utf8")): ts.SourceFile => ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true)

describe("the HTTP boundary", () => {
  it("packages/http/src never reads a participant's .logic", () => {
    const found = sourceFiles(httpSrc).flatMap((file) => logicAccessesOf(parse(file)).map((at) => `${relative(httpSrc, file)}:${at}`))
    expect(found).toEqual([])
  })
})

describe("the boundary check catches what it is for", () => {
  it("reports a member access, an optional one, an element access and a destructuring; not a name that only contains logic", () => {
    const text = [
      "const end = node.participant.logic.ledgerEnd",
      "const maybe = participant?.logic",
      'const indexed = participant["logic"]',
      "const { logic } = participant",
      "const fine = participant.logicalName + topology.logic_ + logicOf(participant)"
    ].join("\n")
    expect(logicAccessesOf(parse("probe.ts", text))).toEqual([
      "1 node.participant.logic",
      "2 participant?.logic",
      '3 participant["logic"]',
      "4 logic"
    ])
  })
})
