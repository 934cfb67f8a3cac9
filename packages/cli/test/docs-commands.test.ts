/**
 * Every shell command that README.md and docs/*.md give runs, as written, in a fresh directory
 * that looks like a checkout (scenarios/, simulations/, package.json): `npx` and `sandnet` are this
 * checkout's, `curl` fails on an HTTP error status, and the documented ports (7575.., LocalNet's)
 * are moved to free ones so that test runs do not collide. A command that starts a node runs in the
 * background until the next block that starts nodes; the blocks after it talk to it. Each command
 * must exit 0 without a stack trace, and some must print what the docs say they print.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { docBlocksOf, isStarter } from "./doc-commands.ts"
import { documents, NOT_RUN, OWN_FILE, runDocument } from "./docs-run.ts"

describe("the commands in README.md and docs/*.md", () => {
  it("are found: the README's install, start, token, curl, simulate and simulation commands; only the listed ones are not run", () => {
    const readme = documents.find((d) => d.file === "README.md")!.blocks.flatMap((b) => b.commands)
    expect(readme).toContain("npm start")
    expect(readme.some((c) => c.startsWith("TOKEN=$(npx sandnet token --user operator)"))).toBe(true)
    expect(readme.some((c) => c.startsWith("curl -s -X POST 'localhost:7575/v2/updates?limit=10'"))).toBe(true)
    expect(readme).toContain("npx sandnet time advance 10m")
    expect(readme.filter(isStarter).length).toBeGreaterThanOrEqual(5)
    // every command not run is still in the docs (the list stays true)
    const all = documents.flatMap((d) => d.blocks.flatMap((b) => b.commands))
    for (const command of Object.keys(NOT_RUN)) expect(all, command).toContain(command)
    expect(all.length).toBeGreaterThan(25)
  })

  it("the extraction joins continued lines, cuts comments outside quotes and reads wrapped inline spans", () => {
    const text = ["Run it:", "", "    npx sandnet a \\", "         --b 'x # y'   # a comment", "", "then `npx sandnet token --user", "ledger-api-user` and `npm run x`."].join("\n")
    const blocks = docBlocksOf("t.md", text)
    expect(blocks.map((b) => b.commands)).toEqual([["npx sandnet a --b 'x # y'"], ["npx sandnet token --user ledger-api-user"]])
    expect(isStarter("DATABASE_URL=x npx sandnet start --port 1")).toBe(true)
    expect(isStarter("npx sandnet simulate x")).toBe(false)
  })

  it("the documents with a test file of their own have one", () => {
    for (const file of OWN_FILE) {
      expect(documents.map((d) => d.file)).toContain(file)
      expect(fs.existsSync(path.join(import.meta.dirname, `docs-commands-${path.basename(file, ".md")}.test.ts`)), file).toBe(true)
    }
  })

  for (const document of documents.filter((d) => !OWN_FILE.includes(d.file))) {
    it(`${document.file}: each runs and exits 0`, async () => {
      await runDocument(document.blocks)
    }, 1_200_000)
  }
})
