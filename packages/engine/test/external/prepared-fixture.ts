/**
 * A fixed PreparedTransaction covering every node kind and value kind the V2 hash encodes (a
 * create root with a seed, an exercise with an interface id, a result and a child fetch, a
 * rollback, an input contract, both optional ledger-effective times), for known-answer tests.
 */
import type { PreparedTransaction, Value } from "@canton-network/core-ledger-proto"

const v = (sum: Value["sum"]): Value => ({ sum })
const id = (entityName: string) => ({ packageId: "ab".repeat(32), moduleName: "Splice.Test", entityName })
const cid = (n: number) => "00" + n.toString(16).padStart(2, "0").repeat(32) + "ca12" + "ee".repeat(32)

const everyValue: Value = v({
  oneofKind: "record",
  record: {
    recordId: id("Everything"),
    fields: [
      { label: "unit", value: v({ oneofKind: "unit", unit: {} }) },
      { label: "bool", value: v({ oneofKind: "bool", bool: true }) },
      { label: "int64", value: v({ oneofKind: "int64", int64: "-42" }) },
      { label: "numeric", value: v({ oneofKind: "numeric", numeric: "3.1415926535" }) },
      { label: "timestamp", value: v({ oneofKind: "timestamp", timestamp: "1767225600000000" }) },
      { label: "date", value: v({ oneofKind: "date", date: 20454 }) },
      { label: "party", value: v({ oneofKind: "party", party: "alice::1220" + "cd".repeat(32) }) },
      { label: "text", value: v({ oneofKind: "text", text: "café ☕" }) },
      { label: "contractId", value: v({ oneofKind: "contractId", contractId: cid(1) }) },
      { label: "none", value: v({ oneofKind: "optional", optional: {} }) },
      { label: "some", value: v({ oneofKind: "optional", optional: { value: v({ oneofKind: "text", text: "x" }) } }) },
      { label: "list", value: v({ oneofKind: "list", list: { elements: [v({ oneofKind: "int64", int64: "1" }), v({ oneofKind: "int64", int64: "2" })] } }) },
      { label: "textMap", value: v({ oneofKind: "textMap", textMap: { entries: [{ key: "k", value: v({ oneofKind: "bool", bool: false }) }] } }) },
      { label: "variant", value: v({ oneofKind: "variant", variant: { variantId: id("V"), constructor: "C", value: v({ oneofKind: "unit", unit: {} }) } }) },
      { label: "enum", value: v({ oneofKind: "enum", enum: { constructor: "Red" } }) },
      {
        label: "genMap",
        value: v({ oneofKind: "genMap", genMap: { entries: [{ key: v({ oneofKind: "int64", int64: "7" }), value: v({ oneofKind: "text", text: "seven" }) }] } })
      }
    ]
  }
})

const alice = "alice::1220" + "cd".repeat(32)
const create = (n: number) => ({
  lfVersion: "2.1",
  contractId: cid(n),
  packageName: "splice-test",
  templateId: id("T"),
  argument: everyValue,
  signatories: [alice],
  stakeholders: [alice]
})

export const FIXED: PreparedTransaction = {
  transaction: {
    version: "2.1",
    roots: ["0", "1"],
    nodes: [
      { nodeId: "0", versionedNode: { oneofKind: "v1", v1: { nodeType: { oneofKind: "create", create: create(2) } } } },
      {
        nodeId: "1",
        versionedNode: {
          oneofKind: "v1",
          v1: {
            nodeType: {
              oneofKind: "exercise",
              exercise: {
                lfVersion: "2.1",
                contractId: cid(3),
                packageName: "splice-test",
                templateId: id("T"),
                signatories: [alice],
                stakeholders: [alice],
                actingParties: [alice],
                interfaceId: id("I"),
                choiceId: "Go",
                chosenValue: everyValue,
                consuming: true,
                children: ["2", "3"],
                exerciseResult: v({ oneofKind: "text", text: "done" }),
                choiceObservers: []
              }
            }
          }
        }
      },
      {
        nodeId: "2",
        versionedNode: {
          oneofKind: "v1",
          v1: {
            nodeType: {
              oneofKind: "fetch",
              fetch: { lfVersion: "2.1", contractId: cid(4), packageName: "splice-test", templateId: id("T"), signatories: [alice], stakeholders: [alice], actingParties: [alice] }
            }
          }
        }
      },
      { nodeId: "3", versionedNode: { oneofKind: "v1", v1: { nodeType: { oneofKind: "rollback", rollback: { children: ["4"] } } } } },
      { nodeId: "4", versionedNode: { oneofKind: "v1", v1: { nodeType: { oneofKind: "create", create: create(5) } } } }
    ],
    nodeSeeds: [
      { nodeId: 0, seed: new Uint8Array(32).fill(1) },
      { nodeId: 1, seed: new Uint8Array(32).fill(2) }
    ]
  },
  metadata: {
    submitterInfo: { actAs: [alice], commandId: "known-answer" },
    synchronizerId: "global::1220" + "ef".repeat(32),
    mediatorGroup: 0,
    transactionUuid: "01234567-89ab-4cde-8f01-23456789abcd",
    preparationTime: 1767225600000000n,
    minLedgerEffectiveTime: 1767225500000000n,
    maxLedgerEffectiveTime: 1767225700000000n,
    inputContracts: [{ contract: { oneofKind: "v1", v1: create(3) }, createdAt: 1767225000000000n, eventBlob: new Uint8Array() }],
    globalKeyMapping: []
  }
}
