/**
 * A network spread over processes with two super validators (docs/storage.md, "A network spread
 * over processes"): sv1 (with the synchronizer), sv2 and validator1 as three processes on the local
 * PostgreSQL server, started together. Genesis needs both super validators' confirmations (the DSO's
 * threshold is 2 of 2); coin tapped on validator1 is confirmed by both and in both super validators'
 * ACSs.
 */
import { makeDevToken } from "@sandnet/http"
import { dropClusterSchema } from "@sandnet/store"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, postgresUrl, request, startAll, stop, type RunningNode } from "./node-support.ts"

const cluster = `cl_${randomBytes(4).toString("hex")}`
const nodes = ["sv1", "sv2", "validator1"] as const
type NodeName = (typeof nodes)[number]
const args = (node: NodeName) => ["--database-url", postgresUrl, "--cluster", cluster, "--node-name", node, "--super-validators", "2"]

let cwd = ""
let token = ""
const running = new Map<NodeName, RunningNode>()
const url = (node: NodeName) => running.get(node)!.url


beforeAll(async () => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sandnet-cluster-svs-"))
  token = await Effect.runPromise(makeDevToken({ user: "operator", secret: "unsafe" }))
  await startAll(nodes, args, cwd, running)
}, 120_000)

afterAll(async () => {
  for (const node of running.values()) await stop(node, "SIGTERM")
  await Effect.runPromise(Effect.ignore(dropClusterSchema(postgresUrl, cluster)))
  for (const n of nodes) await Effect.runPromise(Effect.ignore(dropClusterSchema(postgresUrl, `${cluster}_${n}`)))
  fs.rmSync(cwd, { recursive: true, force: true })
}, 60_000)

describe("a network of two super validators over three processes", () => {
  it("both super validators host the DSO, confirm coin and hold it in their ACS", async () => {
    const parties = async (node: NodeName) =>
      ((await request(`${url(node)}/v2/parties`, token, "GET")).json as { partyDetails: Array<{ party: string; isLocal: boolean }> }).partyDetails
    for (const sv of ["sv1", "sv2"] as const) {
      const dso = (await parties(sv)).find((p) => p.party.startsWith("DSO::"))!
      expect(dso.isLocal, `the DSO on ${sv}`).toBe(true)
    }
    const wallet = `${url("validator1")}/api/validator/v0/wallet`
    const tap = await request(`${wallet}/tap`, token, "POST", { amount: "250.0" })
    expect(tap.status, JSON.stringify(tap.json)).toBe(200)
    const { contract_id } = tap.json as { contract_id: string }
    const balance = (await request(`${wallet}/balance`, token, "GET")).json as { effective_unlocked_qty: string }
    expect(Number(balance.effective_unlocked_qty)).toBe(250)
    // the coin's DSO signatory is confirmed by both super validators: both commit it, both scans show it
    for (const sv of ["sv1", "sv2"] as const) {
      const granted = await request(`${url(sv)}/v2/users/operator/rights`, token, "POST", {
        userId: "operator",
        rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
        identityProviderId: ""
      })
      expect(granted.status, JSON.stringify(granted.json)).toBe(200)
      await eventually(
        `the coin in ${sv}'s ACS`,
        async () => {
          const end = ((await request(`${url(sv)}/v2/state/ledger-end`, token, "GET")).json as { offset: number }).offset
          const acs = await request(`${url(sv)}/v2/state/active-contracts`, token, "POST", { activeAtOffset: end, eventFormat: { filtersForAnyParty: { cumulative: [] } } })
          return JSON.stringify(acs.json)
        },
        (text) => text.includes(contract_id)
      )
    }
  }, 60_000)
})
