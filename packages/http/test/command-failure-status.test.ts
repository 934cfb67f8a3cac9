/**
 * What a wallet command answers when the ledger refuses or rejects it: every code the engine can
 * give a command (its CommandRejected codes and the mediator's rejections) answers a status the
 * client can act on, never 500 (the wallet service's default for codes it does not know), and the
 * timeouts a client should retry answer 503, as the ledger API's ContentionOnSharedResources.
 */
import { ErrorCodes, REJECT_DUPLICATE, REJECT_TIMEOUT } from "@sandnet/engine"
import { describe, expect, it } from "vitest"
import { commandFailureStatus } from "../src/wallet/context.ts"
import { commandFailed } from "../src/ledger/context.ts"

describe("the status of a failed wallet command", () => {
  it("is never 500 for a code the engine gives, and 503 for the timeouts", () => {
    for (const code of [...Object.values(ErrorCodes), REJECT_TIMEOUT, REJECT_DUPLICATE]) {
      expect(commandFailureStatus(code), code).not.toBe(500)
    }
    for (const code of [ErrorCodes.notSequencedTimeout, ErrorCodes.localVerdictTimeout, REJECT_TIMEOUT, ErrorCodes.trafficExceeded]) {
      expect(commandFailureStatus(code), code).toBe(503)
      expect(commandFailed(code, "cause").category, code).toBe("ContentionOnSharedResources")
    }
  })
})
