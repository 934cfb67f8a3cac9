/**
 * Canton's built-in admin workflow package: the Ping template every participant has
 * (`#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping`). Wallet integrators create a
 * Ping to check that a party can submit (the Wallet SDK's connectivity example does). The
 * responder answers with Respond, which archives the ping.
 */
import { Schema } from "effect"
import { Party, Text, type Json } from "@sandnet/core"
import { PackageDef, defineChoice, defineTemplate } from "../ledger/template.ts"

export const PingPackage = new PackageDef("canton-builtin-admin-workflow-ping", "3.4.0")

export const PingPayload = Schema.Struct({ id: Text, initiator: Party, responder: Party })
export type PingPayload = typeof PingPayload.Type

export const Ping = defineTemplate({
  pkg: PingPackage,
  module: "Canton.Internal.Ping",
  entity: "Ping",
  payload: PingPayload,
  signatories: (p) => [p.initiator],
  observers: (p) => [p.responder]
})

export const Ping_Respond = defineChoice(Ping, {
  name: "Respond",
  consuming: true,
  argument: Schema.Struct({}),
  controllers: (p) => [p.responder],
  body: (): Json => ({})
})
