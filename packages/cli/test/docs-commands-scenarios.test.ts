/** The commands of docs/scenarios.md (see docs-commands.test.ts and docs-run.ts), in a file of their own to run in parallel. */
import { describe, it } from "@effect/vitest"
import { documentOf, runDocument } from "./docs-run.ts"

describe("the commands in docs/scenarios.md", () => {
  it("each runs and exits 0", async () => {
    await runDocument(documentOf("docs/scenarios.md").blocks)
  }, 1_200_000)
})
