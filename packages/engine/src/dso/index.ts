/** The DSO's side of the economy: automation run by the super validators and their view of the DSO's contracts (scan/vote-results.ts lists vote results). */
export * from "./automation.ts"
export * from "./heap.ts"
export * from "./view.ts"
