/** The participant (validator node): its deterministic logic, split by role, and the actor around it. */
export * from "./logic.ts"
