import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { parseStartArguments } from "../src/start-entry.ts"

describe("sandnet start without the command line library", () => {
  it("reads the flags of its help page, as --flag value or --flag=value, with the same defaults", () => {
    const spaced = parseStartArguments(["--in-memory", "--port", "8080", "--host", "0.0.0.0", "--super-validators", "2"])
    const joined = parseStartArguments(["--in-memory", "--port=8080", "--host=0.0.0.0", "--super-validators=2"])
    expect(spaced).toEqual(joined)
    expect(spaced).toMatchObject({
      port: Option.some(8080),
      host: "0.0.0.0",
      inMemory: true,
      superValidators: 2,
      validators: undefined,
      secret: "unsafe",
      validatorWalletUser: "operator",
      nodeName: "sandnet",
      portOffset: 0,
      localnet: false,
      logRequests: false
    })
    expect(parseStartArguments([])).toMatchObject({ port: Option.none(), dataDir: Option.none(), inMemory: false })
  })

  it("leaves anything else to the full command line, which explains it", () => {
    for (const args of [
      ["--port", "eighty"],
      ["--port"],
      ["--port", "--in-memory"],
      ["--in-memory=true"],
      ["--in-memory", "--in-memory"],
      ["extra"],
      ["--port", "-1"],
      ["--wizard"]
    ]) {
      expect(parseStartArguments(args), args.join(" ")).toBeUndefined()
    }
  })
})
