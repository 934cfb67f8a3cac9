/**
 * The participant (validator node): its deterministic logic, split by role (submission,
 * confirmation, commit, reassignment, completions, parties, packages, over the state they share), and the
 * actor around it.
 */
export { makeParticipant, type ParticipantNode } from "./actor.ts"
export { ParticipantLogic } from "./logic.ts"
export { checkpointOf, PARTICIPANT_CHECKPOINT_VERSION, restoreCheckpoint, type ParticipantCheckpoint } from "./checkpoint.ts"
export {
  commandKeyOf,
  type CommitListener,
  type Completion,
  type CompletionRecord,
  type Handled,
  type ParticipantConfig,
  type ParticipantEvent,
  type ParticipantStats,
  type ReassignRequest,
  type SubmitRequest,
  type UploadedPackage
} from "./model.ts"
export type { ViewChecker } from "./confirmation.ts"
export { builtInPackages, type KnownPackage } from "./built-in-packages.ts"
export type { Submitted } from "./submission.ts"
export type { Address } from "../network/network.ts"
