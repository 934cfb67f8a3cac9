/**
 * The templates the scan serves, by package-name reference (every package version of a template
 * answers to it), and reading fields of their payloads (compact JSON).
 */
import type { CreatedNode, Json, JsonObject } from "@sandnet/core"
import type { TemplateRegistry } from "../ledger/template.ts"

/** Package-name references of the templates the scan serves. */
export const ScanTemplates = {
  coinRules: "#splice-coin:Splice.CoinRules:CoinRules",
  openMiningRound: "#splice-coin:Splice.Round:OpenMiningRound",
  summarizingMiningRound: "#splice-coin:Splice.Round:SummarizingMiningRound",
  issuingMiningRound: "#splice-coin:Splice.Round:IssuingMiningRound",
  closedMiningRound: "#splice-coin:Splice.Round:ClosedMiningRound",
  transferPreapproval: "#splice-coin:Splice.CoinRules:TransferPreapproval",
  externalPartyCoinRules: "#splice-coin:Splice.ExternalPartyCoinRules:ExternalPartyCoinRules",
  featuredAppRight: "#splice-coin:Splice.Coin:FeaturedAppRight",
  memberTraffic: "#splice-coin:Splice.DecentralizedSynchronizer:MemberTraffic",
  coin: "#splice-coin:Splice.Coin:Coin",
  lockedCoin: "#splice-coin:Splice.Coin:LockedCoin",
  coinTransferInstruction: "#splice-coin:Splice.CoinTransferInstruction:CoinTransferInstruction",
  coinAllocation: "#splice-coin:Splice.CoinAllocation:CoinAllocation",
  ansRules: "#splice-coin-name-service:Splice.Ans:AnsRules",
  dsoRules: "#splice-dso-governance:Splice.DsoRules:DsoRules",
  voteRequest: "#splice-dso-governance:Splice.DsoRules:VoteRequest"
} as const

/** The token standard's TransferInstruction interface, by module and entity. */
export const TRANSFER_INSTRUCTION_INTERFACE = ":Splice.Api.Token.TransferInstructionV1:TransferInstruction"
/** The token standard's Allocation interface, by module and entity. */
export const ALLOCATION_INTERFACE = ":Splice.Api.Token.AllocationV1:Allocation"
export const CLOSE_VOTE_REQUEST = "DsoRules_CloseVoteRequest"

/** `#<package name>:<module>:<entity>` of a package-id template id. */
export const nameReferenceOf = (templateId: string, packageName: string): string =>
  `#${packageName}:${templateId.slice(templateId.indexOf(":") + 1)}`

export const isTemplate = (created: CreatedNode, reference: string): boolean =>
  nameReferenceOf(created.templateId, created.packageName) === reference

/** Every template id (all package versions) registered under a package-name reference. */
export const templateIdsOf = (registry: TemplateRegistry, reference: string): ReadonlyArray<string> =>
  registry
    .all()
    .filter((t) => t.nameReference === reference)
    .map((t) => t.templateId)

/** The entity of a reference (`#<package name>:<module>:<entity>`). */
export const entityOf = (reference: string): string => reference.slice(reference.lastIndexOf(":") + 1)

export const payloadField = (created: CreatedNode, field: string): Json | undefined => created.createArguments[field]

export const asObject = (value: Json | undefined): JsonObject | undefined =>
  value !== null && value !== undefined && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : undefined

export const asArray = (value: Json | undefined): ReadonlyArray<Json> | undefined => (Array.isArray(value) ? (value as ReadonlyArray<Json>) : undefined)
