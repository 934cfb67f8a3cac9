/**
 * Splice's featured-app delegate proxy (package splice-util-featured-app-proxies, module
 * Splice.Util.FeaturedApp.DelegateProxy), as the Wallet SDK's `token.transfer.delegatedProxy`
 * uses it (example 13-rewards-for-deposits): a featured app provider creates a DelegateProxy for
 * a delegate (an exchange's treasury); the delegate then accepts, rejects or withdraws its
 * transfer instructions, allocates and withdraws allocations through the proxy, and each call
 * records the provider's activity as FeaturedAppActivityMarkers for the beneficiaries
 * (FeaturedAppRight_CreateActivityMarker on the provider's featured app right) before exercising
 * the token standard's choice.
 *
 * The delegate controls the proxy's choices; the proxy's signatory, the provider, lends its
 * authority to the marker, the delegate its own to the proxied choice.
 */
import { Schema } from "effect"
import { ContractIdRef, Party, type Json } from "@sandnet/core"
import { defineChoice, defineTemplate, type Choice, type UpdateContext } from "../ledger/template.ts"
import {
  ExtraArgs,
  TransferFactory_Transfer,
  TransferFactoryArgument,
  TransferInstruction_Accept,
  TransferInstruction_Reject,
  TransferInstruction_Withdraw
} from "./instruction.ts"
import { AllocationFactory_Allocate, AllocationFactoryArgument, Allocation_Withdraw } from "./allocation.ts"
import { FeaturedAppProxiesPackage } from "./packages.ts"
import { AppRewardBeneficiary, FeaturedAppRight, FeaturedAppRight_CreateActivityMarker } from "./rewards.ts"

const MODULE = "Splice.Util.FeaturedApp.DelegateProxy"

export const DelegateProxyPayload = Schema.Struct({ provider: Party, delegate: Party })
export type DelegateProxyPayload = typeof DelegateProxyPayload.Type

export const DelegateProxy = defineTemplate({
  pkg: FeaturedAppProxiesPackage,
  module: MODULE,
  entity: "DelegateProxy",
  payload: DelegateProxyPayload,
  signatories: (p) => [p.provider],
  observers: (p) => [p.delegate]
})

/** Upstream's ProxyArg: the proxied choice's argument, the provider's featured app right and the markers' beneficiaries. */
const proxyArg = <A, I>(choiceArg: Schema.Schema<A, I>) =>
  Schema.Struct({ choiceArg, featuredAppRightCid: ContractIdRef, beneficiaries: Schema.Array(AppRewardBeneficiary) })

type ProxyArg<A> = {
  readonly choiceArg: A
  readonly featuredAppRightCid: string
  readonly beneficiaries: ReadonlyArray<AppRewardBeneficiary>
}

/** Upstream's ProxyResult: the marker's result, then the proxied choice's. */
const proxied = <P, A>(ctx: UpdateContext, self: { readonly payload: DelegateProxyPayload }, arg: ProxyArg<A>, choice: Choice<P, A>, cid: string): Json => {
  const right = ctx.fetch(FeaturedAppRight, arg.featuredAppRightCid).payload
  ctx.require(right.provider === self.payload.provider, `featured app right ${arg.featuredAppRightCid} is not the proxy provider's`)
  const markerResult = ctx.exercise(FeaturedAppRight_CreateActivityMarker, arg.featuredAppRightCid, { beneficiaries: arg.beneficiaries })
  return { markerResult, choiceResult: ctx.exercise(choice, cid, arg.choiceArg) }
}

const InstructionArgument = Schema.Struct({ cid: ContractIdRef, proxyArg: proxyArg(Schema.Struct({ extraArgs: ExtraArgs })) })

/** A proxied choice whose argument is only the registry's `extraArgs` (instructions' accept, reject, withdraw; an allocation's withdraw). */
const instructionChoice = <P>(name: string, choice: Choice<P, { readonly extraArgs: ExtraArgs }>) =>
  defineChoice(DelegateProxy, {
    name,
    consuming: false,
    argument: InstructionArgument,
    controllers: (p) => [p.delegate],
    body: (ctx, self, arg): Json => proxied(ctx, self, arg.proxyArg, choice, arg.cid)
  })

export const DelegateProxy_TransferInstruction_Accept = instructionChoice("DelegateProxy_TransferInstruction_Accept", TransferInstruction_Accept)
export const DelegateProxy_TransferInstruction_Reject = instructionChoice("DelegateProxy_TransferInstruction_Reject", TransferInstruction_Reject)
export const DelegateProxy_TransferInstruction_Withdraw = instructionChoice("DelegateProxy_TransferInstruction_Withdraw", TransferInstruction_Withdraw)

/** A transfer through the proxy: the delegate (the sender) transfers, the provider records the activity. */
export const DelegateProxy_TransferFactory_Transfer = defineChoice(DelegateProxy, {
  name: "DelegateProxy_TransferFactory_Transfer",
  consuming: false,
  argument: Schema.Struct({ cid: ContractIdRef, proxyArg: proxyArg(TransferFactoryArgument) }),
  controllers: (p) => [p.delegate],
  body: (ctx, self, arg): Json => proxied(ctx, self, arg.proxyArg, TransferFactory_Transfer, arg.cid)
})

/** An allocation by the delegate (the leg's sender) through the proxy; the provider records the activity. */
export const DelegateProxy_AllocationFactory_Allocate = defineChoice(DelegateProxy, {
  name: "DelegateProxy_AllocationFactory_Allocate",
  consuming: false,
  argument: Schema.Struct({ cid: ContractIdRef, proxyArg: proxyArg(AllocationFactoryArgument) }),
  controllers: (p) => [p.delegate],
  body: (ctx, self, arg): Json => proxied(ctx, self, arg.proxyArg, AllocationFactory_Allocate, arg.cid)
})

/** The delegate (the leg's sender) withdraws its allocation through the proxy. */
export const DelegateProxy_Allocation_Withdraw = instructionChoice("DelegateProxy_Allocation_Withdraw", Allocation_Withdraw)
