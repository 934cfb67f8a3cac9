/**
 * Scan S2 (GET /v1/updates/{id}, /v0/updates/{id}) and S3 (GET /v0/events/{id}) over real HTTP
 * against a node with an engine on a manual clock.
 */
import { Effect, Schema } from "effect"
import { Party, Text, formatScanOffset, uidWithoutPrefix, type CreatedNode, type ExercisedNode, type TransactionUpdate } from "@sandnet/core"
import {
  CoinRules,
  CoinRules_DevNet_Tap,
  CoinRules_Transfer,
  Commands,
  OpenMiningRound,
  PackageDef,
  defineTemplate,
  type Command,
  type SubmitRequest
} from "@sandnet/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  START,
  allocate,
  dsoRef,
  expectError,
  get,
  iso,
  nextCommandId,
  obj,
  scanUpdate,
  startEngineNode,
  submit,
  tap,
  validator,
  type EngineNode
} from "./scan-support.ts"

/** A template the DSO does not see: its creation is cut from the DSO's projection. */
const TestPackage = new PackageDef("sandnet-scan-test", "1.0.0")
const Memo = defineTemplate({
  pkg: TestPackage,
  module: "Sandnet.ScanTest",
  entity: "Memo",
  payload: Schema.Struct({ owner: Party, text: Text }),
  signatories: (p) => [p.owner]
})

let node: EngineNode
let genesisId: string
let alice: string

beforeAll(async () => {
  node = await startEngineNode({
    network: { synchronizers: [{ name: "global-synchronizer" }, { name: "second-synchronizer" }] }
  })
  const engine = await node.engine()
  engine.network.registry.add(TestPackage)
  genesisId = engine.network.superValidators[0]!.scan.updates.at(0)!.update.updateId
  alice = await allocate(node, "alice")
})
afterAll(() => node.close())

const scanUrl = (path: string) => `${node.url}/api/scan${path}`

const expectedCreated = (node_: CreatedNode, eventId: string) => ({
  event_type: "created_event",
  event_id: eventId,
  contract_id: node_.contractId,
  template_id: node_.templateId,
  package_name: node_.packageName,
  create_arguments: node_.createArguments,
  created_at: iso(node_.createdAt),
  signatories: [...node_.signatories].sort(),
  observers: [...node_.observers].sort()
})

const expectedExercised = (n: ExercisedNode, eventId: string, children: ReadonlyArray<string>) => ({
  event_type: "exercised_event",
  event_id: eventId,
  contract_id: n.contractId,
  template_id: n.templateId,
  package_name: n.packageName,
  choice: n.choice,
  choice_argument: n.choiceArgument,
  child_event_ids: children,
  exercise_result: n.exerciseResult,
  consuming: n.consuming,
  acting_parties: [...n.actingParties].sort()
})

describe("S2 GET /v1/updates/{update_id}", () => {
  it("renders the genesis transaction with every field, record time in microseconds and the scan's offset", async () => {
    const reply = await get(scanUrl(`/v1/updates/${genesisId}`))
    expect(reply.status).toBe(200)
    const tx = obj(reply.json)
    expect(Object.keys(tx)).toEqual([
      "update_id",
      "migration_id",
      "workflow_id",
      "record_time",
      "synchronizer_id",
      "effective_at",
      "offset",
      "root_event_ids",
      "events_by_id"
    ])
    const engine = await node.engine()
    const update = (await scanUpdate(node, genesisId)).update as TransactionUpdate
    expect(tx["update_id"]).toBe(genesisId)
    expect(tx["migration_id"]).toBe(0)
    expect(tx["workflow_id"]).toBe("")
    expect(tx["record_time"]).toBe("2026-01-01T10:30:00.000000Z")
    expect(tx["effective_at"]).toBe(iso(update.effectiveAt))
    expect(tx["synchronizer_id"]).toBe(engine.network.synchronizers[0]!.info.synchronizerId)
    // the SV's offsets 1 and 2 are the topology updates hosting its operator and the DSO (no scan update)
    expect(tx["offset"]).toBe("000000000000000003")
    const ids = update.nodes.map((n) => `${genesisId}:${n.nodeId}`)
    expect(tx["root_event_ids"]).toEqual(ids)
    const events = obj(tx["events_by_id"])
    expect(Object.keys(events)).toEqual(ids)
    for (const n of update.nodes) {
      expect(n.kind).toBe("created")
      if (n.kind === "created") expect(events[`${genesisId}:${n.nodeId}`]).toEqual(expectedCreated(n, `${genesisId}:${n.nodeId}`))
    }
    const rules = Object.values(events).find((e) => obj(e)["template_id"] === CoinRules.templateId)
    expect(obj(rules)["package_name"]).toBe("splice-coin")
    expect(obj(rules)["signatories"]).toEqual([engine.network.dso])
  })

  it("protobuf_json types every value (Party, Numeric, Int64, records); daml_value_encoding is the same", async () => {
    const engine = await node.engine()
    const typed = obj((await get(scanUrl(`/v1/updates/${genesisId}?contract_value_encoding=protobuf_json`))).json)
    const events = Object.values(obj(typed["events_by_id"])).map(obj)
    const rules = obj(events.find((e) => e["template_id"] === CoinRules.templateId)!["create_arguments"])
    const fields = obj(rules["record"])["fields"] as Array<{ label: string; value: unknown }>
    expect(fields.map((f) => f.label)).toEqual(["dso", "configSchedule", "isDevNet"])
    expect(fields[0]!.value).toEqual({ party: engine.network.dso })
    expect(fields[2]!.value).toEqual({ bool: true })
    const round = obj(events.find((e) => e["template_id"] === OpenMiningRound.templateId)!["create_arguments"])
    const roundFields = obj(round["record"])["fields"] as Array<{ label: string; value: unknown }>
    expect(roundFields.find((f) => f.label === "coinPrice")?.value).toEqual({ numeric: "0.005" })
    expect(roundFields.find((f) => f.label === "dso")?.value).toEqual({ party: engine.network.dso })
    expect(roundFields.find((f) => f.label === "round")?.value).toEqual({
      record: { fields: [{ label: "number", value: { int64: expect.stringMatching(/^\d+$/) } }] }
    })
    // Everything but the values is the same as compact_json.
    const compact = obj((await get(scanUrl(`/v1/updates/${genesisId}`))).json)
    expect({ ...typed, events_by_id: null }).toEqual({ ...compact, events_by_id: null })
    const upstreamName = await get(scanUrl(`/v1/updates/${genesisId}?daml_value_encoding=protobuf_json`))
    expect(upstreamName.json).toEqual(typed)
    expect((await get(scanUrl(`/v1/updates/${genesisId}?contract_value_encoding=compact_json`))).json).toEqual(compact)
  })

  it("v1 numbers the DSO's projection in pre-order; v0 keeps the participant's node ids with a # prefix", async () => {
    const updateId = await tap(node, alice, "100", validator(), [Commands.create(Memo, { owner: alice, text: "private" })])
    const update = (await scanUpdate(node, updateId)).update as TransactionUpdate
    // The Memo (node 0) is invisible to the DSO: the scan holds the tap's exercise (1) and the coin (2).
    expect(update.nodes.map((n) => n.nodeId)).toEqual([1, 2])
    const exercise = update.nodes[0] as ExercisedNode
    const coin = update.nodes[1] as CreatedNode

    const v1 = obj((await get(scanUrl(`/v1/updates/${updateId}`))).json)
    expect(v1["root_event_ids"]).toEqual([`${updateId}:0`])
    expect(v1["events_by_id"]).toEqual({
      [`${updateId}:0`]: expectedExercised(exercise, `${updateId}:0`, [`${updateId}:1`]),
      [`${updateId}:1`]: expectedCreated(coin, `${updateId}:1`)
    })
    expect(exercise.choice).toBe("CoinRules_DevNet_Tap")
    expect(Object.keys(obj(obj(v1["events_by_id"])[`${updateId}:0`]))).not.toContain("interface_id")

    const v0 = obj((await get(scanUrl(`/v0/updates/${updateId}`))).json)
    expect(v0["root_event_ids"]).toEqual([`#${updateId}:1`])
    expect(v0["events_by_id"]).toEqual({
      [`#${updateId}:1`]: expectedExercised(exercise, `#${updateId}:1`, [`#${updateId}:2`]),
      [`#${updateId}:2`]: expectedCreated(coin, `#${updateId}:2`)
    })
    expect({ ...v0, root_event_ids: null, events_by_id: null }).toEqual({ ...v1, root_event_ids: null, events_by_id: null })

    // The choice argument is typed by the choice's Schema; the result by its JSON shape.
    const typed = obj((await get(scanUrl(`/v0/updates/${updateId}?lossless=true`))).json)
    const typedExercise = obj(obj(typed["events_by_id"])[`#${updateId}:1`])
    expect(typedExercise["choice_argument"]).toEqual({
      record: {
        fields: [
          { label: "receiver", value: { party: alice } },
          { label: "amount", value: { numeric: "100" } },
          { label: "openRound", value: { contractId: (exercise.choiceArgument as { openRound: string }).openRound } }
        ]
      }
    })
    expect(obj(typedExercise["exercise_result"])).toHaveProperty("record")
    const typedCoin = obj(obj(obj(typed["events_by_id"])[`#${updateId}:2`])["create_arguments"])
    expect((obj(typedCoin["record"])["fields"] as Array<{ label: string; value: unknown }>).slice(0, 2)).toEqual([
      { label: "dso", value: { party: (await node.engine()).network.dso } },
      { label: "owner", value: { party: alice } }
    ])
  })

  it("renders an unassignment and an assignment (reassignment counter, unassign id, created event)", async () => {
    const engine = await node.engine()
    const tapId = await tap(node, alice, "5")
    const coin = ((await scanUpdate(node, tapId)).update as TransactionUpdate).nodes.find((n) => n.kind === "created") as CreatedNode
    const target = engine.network.synchronizers[1]!.info.synchronizerId
    const source = engine.network.synchronizers[0]!.info.synchronizerId
    const commandId = nextCommandId("move")
    const { updateId: unassignId } = await node.run((e) =>
      Effect.orDie(e.network.validators[0]!.participant.reassign({ submitter: alice, commandId, contractId: coin.contractId, targetSynchronizer: target }))
    )
    const scan = (await node.engine()).network.superValidators[0]!.scan
    const assignEntry = [...scan.updates].find((u) => u.update.kind === "reassignment" && u.update.event.kind === "assign" && u.update.event.unassignId === unassignId)
    expect(assignEntry).toBeDefined()
    const assignId = assignEntry!.update.updateId
    const unassignEntry = await scanUpdate(node, unassignId)

    const unassign = (await get(scanUrl(`/v1/updates/${unassignId}`))).json
    expect(unassign).toEqual({
      update_id: unassignId,
      offset: formatScanOffset(unassignEntry.offset),
      record_time: iso(unassignEntry.update.recordTime),
      event: {
        submitter: alice,
        source_synchronizer: source,
        migration_id: 0,
        target_synchronizer: target,
        unassign_id: unassignId,
        reassignment_counter: 1,
        contract_id: coin.contractId
      }
    })
    const assign = obj((await get(scanUrl(`/v1/updates/${assignId}`))).json)
    expect(assign).toEqual({
      update_id: assignId,
      offset: formatScanOffset(assignEntry!.offset),
      record_time: iso(assignEntry!.update.recordTime),
      event: {
        submitter: alice,
        source_synchronizer: source,
        target_synchronizer: target,
        migration_id: 0,
        unassign_id: unassignId,
        created_event: expectedCreated(coin, `${assignId}:0`),
        reassignment_counter: 1
      }
    })
    expect(assignEntry!.offset).toBeGreaterThan(unassignEntry.offset)
    const v0 = obj((await get(scanUrl(`/v0/updates/${assignId}`))).json)
    expect(obj(obj(v0["event"])["created_event"])["event_id"]).toBe(`#${assignId}:0`)

    // The events endpoint shows a reassignment without a verdict.
    const event = obj((await get(scanUrl(`/v0/events/${assignId}`))).json)
    expect(Object.keys(event)).toEqual(["update"])
    expect(event["update"]).toEqual(assign)
  })

  it("answers 400 for a malformed id or encoding, 404 for an unknown id", async () => {
    expect(expectError(await get(scanUrl(`/v1/updates/not-an-update`)), 400)).toMatch(/path parameter update_id/)
    expect(expectError(await get(scanUrl(`/v1/updates/${genesisId}?contract_value_encoding=xml`)), 400)).toMatch(/contract_value_encoding/)
    expect(
      expectError(await get(scanUrl(`/v1/updates/${genesisId}?contract_value_encoding=compact_json&daml_value_encoding=protobuf_json`)), 400)
    ).toMatch(/disagree/)
    expectError(await get(scanUrl(`/v0/updates/${genesisId}?lossless=maybe`)), 400)
    const unknown = `1220${"ab".repeat(32)}`
    expect(expectError(await get(scanUrl(`/v1/updates/${unknown}`)), 404)).toBe(`update ${unknown} not found`)
    expectError(await get(scanUrl(`/v0/updates/${unknown}`)), 404)
  })
})

describe("S3 GET /v0/events/{update_id}", () => {
  it("returns the update (no offset, ids sorted lexicographically, children in execution order), the verdict and the traffic summary", async () => {
    // Eleven taps in one transaction: 22 events, so that lexicographic and numeric order differ.
    const ref = await dsoRef(node)
    const taps: Array<Command> = Array.from({ length: 11 }, () =>
      Commands.exercise(CoinRules_DevNet_Tap, ref.coinRules.created.contractId, {
        receiver: alice,
        amount: "1",
        openRound: ref.openRound.created.contractId
      })
    )
    const completion = await submit(node, validator(), {
      actAs: [alice],
      commandId: nextCommandId("taps"),
      commands: taps,
      disclosedContracts: [ref.coinRules, ref.openRound]
    })
    expect(completion._tag).toBe("Succeeded")
    const updateId = completion.updateId!
    const entry = await scanUpdate(node, updateId)
    const update = entry.update as TransactionUpdate

    const reply = await get(scanUrl(`/v0/events/${updateId}`))
    expect(reply.status).toBe(200)
    const event = obj(reply.json)
    expect(Object.keys(event).filter((k) => k !== "app_activity_records")).toEqual(["update", "verdict", "traffic_summary"])
    const tx = obj(event["update"])
    expect(Object.keys(tx)).toEqual([
      "update_id",
      "migration_id",
      "workflow_id",
      "record_time",
      "synchronizer_id",
      "effective_at",
      "root_event_ids",
      "events_by_id"
    ])
    const ids = Object.keys(obj(tx["events_by_id"]))
    expect(ids).toHaveLength(22)
    expect(ids).toEqual([...ids].sort())
    expect(ids.slice(0, 4)).toEqual([`${updateId}:0`, `${updateId}:1`, `${updateId}:10`, `${updateId}:11`])
    expect(tx["root_event_ids"]).toEqual(Array.from({ length: 11 }, (_, i) => `${updateId}:${2 * i}`))
    for (let i = 0; i < 11; i++) {
      expect(obj(obj(tx["events_by_id"])[`${updateId}:${2 * i}`])["child_event_ids"]).toEqual([`${updateId}:${2 * i + 1}`])
    }
    expect(tx["record_time"]).toBe(iso(update.recordTime))

    const engine = await node.engine()
    const stored = engine.network.superValidators[0]!.scan.verdictOf(updateId)!
    expect(event["verdict"]).toEqual({
      update_id: updateId,
      migration_id: 0,
      domain_id: engine.network.synchronizers[0]!.info.synchronizerId,
      record_time: iso(update.recordTime),
      finalization_time: iso(stored.verdict.finalizationTime),
      submitting_parties: [alice],
      submitting_participant_uid: uidWithoutPrefix(engine.network.validators[0]!.participant.logic.uid),
      verdict_result: "VERDICT_RESULT_ACCEPTED",
      mediator_group: 0,
      transaction_views: {
        views: stored.verdict.views.map((v) => ({
          view_id: v.viewId,
          informees: v.informees,
          confirming_parties: v.confirmingParties.map((q) => ({ parties: q.parties, threshold: q.threshold })),
          sub_views: v.subViews,
          view_hash: v.viewHash
        })),
        root_views: stored.verdict.rootViews
      }
    })
    expect(obj(event["verdict"])["submitting_participant_uid"]).toMatch(/^validator1::1220/)
    const views = obj(obj(event["verdict"])["transaction_views"])["views"] as Array<Record<string, unknown>>
    expect(views.length).toBeGreaterThan(0)
    expect(views[0]).toEqual({
      view_id: expect.any(Number),
      informees: expect.arrayContaining([alice]),
      confirming_parties: expect.any(Array),
      sub_views: expect.any(Array),
      view_hash: expect.stringMatching(/^[0-9a-f]{64}$/)
    })
    const traffic = obj(event["traffic_summary"])
    expect(traffic["total_traffic_cost"]).toBe(stored.trafficSummary.totalTrafficCost)
    expect(traffic["total_traffic_cost"]).toBeGreaterThan(0)
    expect(traffic["envelope_traffic_summaries"]).toEqual(
      stored.trafficSummary.envelopes.map((e) => ({ traffic_cost: e.trafficCost, view_ids: e.viewIds }))
    )

    // protobuf_json applies to the update's values.
    const typed = obj((await get(scanUrl(`/v0/events/${updateId}?contract_value_encoding=protobuf_json`))).json)
    const created = obj(obj(obj(typed["update"])["events_by_id"])[`${updateId}:1`])
    expect(obj(created["create_arguments"])).toHaveProperty("record")
  })

  it("a rejected transaction has only its verdict (and traffic summary); /v1/updates does not know it", async () => {
    const tapId = await tap(node, alice, "10")
    const coin = ((await scanUpdate(node, tapId)).update as TransactionUpdate).nodes.find((n) => n.kind === "created") as CreatedNode
    const ref = await dsoRef(node)
    const spend = (commandId: string): SubmitRequest => ({
      actAs: [alice],
      commandId,
      commands: [
        Commands.exercise(CoinRules_Transfer, ref.coinRules.created.contractId, {
          transfer: {
            sender: alice,
            provider: alice,
            inputs: [{ tag: "InputCoin", value: coin.contractId }],
            outputs: [{ receiver: alice, receiverFeeRatio: "0", amount: "4" }],
            beneficiaries: null
          },
          context: { openMiningRound: ref.openRound.created.contractId, featuredAppRight: null },
          expectedDso: null
        })
      ],
      disclosedContracts: [ref.coinRules, ref.openRound]
    })
    const [a, b] = [nextCommandId("spend"), nextCommandId("spend")]
    // Both are interpreted against the same ACS before either is sequenced: one is rejected.
    await node.run((engine) =>
      Effect.gen(function* () {
        const participant = engine.network.validators[0]!.participant
        yield* Effect.orDie(participant.submit(spend(a)))
        yield* Effect.orDie(participant.submit(spend(b)))
      })
    )
    const engine = await node.engine()
    const completions = [a, b].map((id) => engine.network.validators[0]!.participant.logic.completionOf(id, [alice])!)
    const rejected = completions.find((c) => c._tag === "Failed")
    expect(rejected).toBeDefined()
    const rejectedId = rejected!.updateId!
    const event = obj((await get(scanUrl(`/v0/events/${rejectedId}`))).json)
    expect(Object.keys(event)).toEqual(["verdict", "traffic_summary"])
    expect(obj(event["verdict"])["verdict_result"]).toBe("VERDICT_RESULT_REJECTED")
    expect(obj(event["verdict"])["update_id"]).toBe(rejectedId)
    expectError(await get(scanUrl(`/v1/updates/${rejectedId}`)), 404)
  })

  it("shows the app activity records of an update and the first verdict ingested (a later one is ignored)", async () => {
    const engine = await node.engine()
    const scan = engine.network.superValidators[0]!.scan
    const previous = scan.appActivity
    scan.appActivity = (entry) =>
      entry.update.kind === "transaction" && entry.update.submitters.includes(alice)
        ? { roundNumber: 7, records: [{ party: alice, weight: 1234 }] }
        : undefined
    let updateId: string
    try {
      updateId = await tap(node, alice, "2")
    } finally {
      scan.appActivity = previous
    }
    const first = scan.verdictOf(updateId)!
    expect(scan.ingestVerdict({ ...first.verdict, finalizationTime: first.verdict.finalizationTime + 1_000_000 }, first.trafficSummary)).toBe(false)
    const event = obj((await get(scanUrl(`/v0/events/${updateId}`))).json)
    expect(Object.keys(event)).toEqual(["update", "verdict", "traffic_summary", "app_activity_records"])
    expect(event["app_activity_records"]).toEqual({ round_number: 7, records: [{ party: alice, weight: 1234 }] })
    expect(obj(event["verdict"])["finalization_time"]).toBe(iso(first.verdict.finalizationTime))
  })

  it("answers 404 for an unknown id and 400 for a malformed one", async () => {
    const unknown = `1220${"cd".repeat(32)}`
    expect(expectError(await get(scanUrl(`/v0/events/${unknown}`)), 404)).toMatch(/not found/)
    expect(expectError(await get(scanUrl(`/v0/events/1220xyz`)), 400)).toMatch(/update_id/)
    expectError(await get(scanUrl(`/v0/events/${genesisId}?daml_value_encoding=json`)), 400)
  })

  it("starts at the configured time", () => {
    expect(iso(START)).toBe("2026-01-01T10:30:00.000000Z")
  })
})
