/**
 * The wallet's history: which committed transactions each user's party witnessed (an index of
 * offsets, derived from the ledger and rebuilt from it at start), and the history items a
 * transaction holds for a party (transfers, taps, dust expiry, notifications of closed offers).
 */
import { Either } from "effect"
import { InvalidArgument, amountOf, formatAmount, toIso, type CommittedUpdate, type ExercisedNode, type PartyId, type TransactionUpdate } from "@sandnet/core"
import type * as Api from "./api.ts"
import type { WalletContext } from "./context.ts"
import type { WalletError } from "./errors.ts"

const ZERO_DECIMAL = "0.0000000000"

/** Files a committed transaction under the local parties that witnessed it. */
export const indexHistory = (wallet: WalletContext, entry: CommittedUpdate, only?: ReadonlySet<PartyId>): void => {
  const update = entry.update
  if (update.kind !== "transaction") return
  for (const node of update.nodes) {
    for (const w of node.witnesses) {
      if (!wallet.state.userOfParty.has(w) || (only !== undefined && !only.has(w))) continue
      let list = wallet.historyOffsets.get(w)
      if (list === undefined) wallet.historyOffsets.set(w, (list = []))
      if (list[list.length - 1] !== entry.offset) list.push(entry.offset)
    }
  }
}

/** The user's history, newest first; `begin_after_id` is the event id of the previous page's last item. */
export const listTransactions = (wallet: WalletContext, user: string, request: Api.ListTransactionsRequest): Either.Either<Api.ListTransactionsResponse, WalletError> =>
  Either.flatMap(wallet.partyOf(user), (party) => {
    const offsets = wallet.historyOffsets.get(party) ?? []
    let from = offsets.length - 1
    let afterNode: number | undefined
    if (request.begin_after_id !== undefined) {
      const [updateId, nodeText] = request.begin_after_id.split(":")
      const entry = updateId === undefined ? undefined : wallet.participant.logic.updateById(updateId)
      if (entry === undefined || nodeText === undefined) return Either.left(new InvalidArgument({ field: "begin_after_id", message: "is not an event id of this wallet's history" }))
      from = lastIndexAtMost(offsets, entry.offset)
      afterNode = Number(nodeText)
    }
    const items: Array<Api.TransactionItem> = []
    for (let i = from; i >= 0 && items.length < request.page_size; i--) {
      const entry = wallet.participant.logic.updateAtOffset(offsets[i]!)
      if (entry === undefined || entry.update.kind !== "transaction") continue
      const rendered = historyItems(entry.update, party).reverse()
      for (const item of rendered) {
        if (afterNode !== undefined && i === from && nodeIdOf(item.event_id) >= afterNode) continue
        items.push(item)
        if (items.length >= request.page_size) break
      }
    }
    return Either.right({ items })
  })


const lastIndexAtMost = (sorted: ReadonlyArray<number>, value: number): number => {
  let lo = 0
  let hi = sorted.length - 1
  let best = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! <= value) {
      best = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return best
}

const nodeIdOf = (eventId: string): number => Number(eventId.slice(eventId.lastIndexOf(":") + 1))

const NOTIFICATIONS: Record<string, string> = {
  TransferOffer_Reject: "Transfer offer rejected by the receiver",
  TransferOffer_Withdraw: "Transfer offer withdrawn by the sender",
  TransferOffer_Expire: "Transfer offer expired",
  AcceptedTransferOffer_Abort: "Accepted transfer offer aborted by the sender",
  AcceptedTransferOffer_Withdraw: "Accepted transfer offer withdrawn by the receiver",
  AcceptedTransferOffer_Expire: "Accepted transfer offer expired",
  TransferInstruction_Reject: "Token-standard transfer rejected by the receiver",
  TransferInstruction_Withdraw: "Token-standard transfer withdrawn by the sender",
  CoinTransferInstruction_Expire: "Token-standard transfer expired",
  BuyTrafficRequest_Cancel: "Buy-traffic request rejected",
  BuyTrafficRequest_Expire: "Buy-traffic request expired"
}

/** The wallet history items a transaction holds for `party`, in node order. */
export const historyItems = (update: TransactionUpdate, party: PartyId): Array<Api.TransactionItem> => {
  const items: Array<Api.TransactionItem> = []
  const rootExercise = rootExerciseOf(update)
  const date = toIso(update.effectiveAt)
  for (const node of update.nodes) {
    if (node.kind !== "exercised" || !node.witnesses.includes(party)) continue
    const item = historyItemOf(node, party, `${update.updateId}:${node.nodeId}`, date, rootExercise)
    if (item !== undefined) items.push(item)
  }
  return items
}

/** The outermost exercise a node ran in: what the user did (send, accept, complete, merge, ...). */
const rootExerciseOf = (update: TransactionUpdate): ((nodeId: number) => ExercisedNode) => {
  const byId = new Map(update.nodes.map((n) => [n.nodeId, n]))
  const parentOf = new Map<number, number>()
  for (const node of update.nodes) if (node.kind === "exercised") for (const child of node.childNodeIds) parentOf.set(child, node.nodeId)
  return (nodeId) => {
    let current = byId.get(nodeId) as ExercisedNode
    for (let p = parentOf.get(nodeId); p !== undefined; p = parentOf.get(p)) {
      const parent = byId.get(p)
      if (parent?.kind === "exercised") current = parent
    }
    return current
  }
}

const subtype = (n: ExercisedNode, operation?: string): Api.TransactionSubtype => ({
  template_id: n.templateId,
  choice: n.choice,
  ...(operation === undefined ? {} : { coin_operation: operation }),
  ...(n.interfaceId === undefined ? {} : { interface_id: n.interfaceId })
})

/** The history item an exercise holds for `party`, if any. */
const historyItemOf = (
  node: ExercisedNode,
  party: PartyId,
  eventId: string,
  date: string,
  rootExercise: (nodeId: number) => ExercisedNode
): Api.TransactionItem | undefined => {
  switch (node.choice) {
    case "CoinRules_Transfer":
      return transferItem(node, party, eventId, date, rootExercise)
    case "CoinRules_DevNet_Tap": {
      const arg = node.choiceArgument as { receiver: string; amount: string }
      if (arg.receiver !== party) return undefined
      return { transaction_type: "balance_change", transaction_subtype: subtype(node, "tap"), event_id: eventId, date, receivers: [{ party, amount: formatAmount(amountOf(arg.amount)) }] }
    }
    case "Coin_Expire":
    case "LockedCoin_ExpireCoin": {
      const r = node.exerciseResult as { expireSum?: { owner?: string; expiredAmount?: string } } | null
      if (r?.expireSum?.owner !== party) return undefined
      return {
        transaction_type: "balance_change",
        transaction_subtype: subtype(node, "dust expiry"),
        event_id: eventId,
        date,
        receivers: [{ party, amount: formatAmount(-amountOf(r.expireSum.expiredAmount ?? ZERO_DECIMAL)) }]
      }
    }
    default: {
      const details = NOTIFICATIONS[node.choice]
      return details !== undefined && node.consuming ? { transaction_type: "notification", transaction_subtype: subtype(node), event_id: eventId, date, details } : undefined
    }
  }
}

/** A transfer the party sent or received, described by the exercise it ran in (a token-standard transfer's instruction included). */
const transferItem = (
  node: ExercisedNode,
  party: PartyId,
  eventId: string,
  date: string,
  rootExercise: (nodeId: number) => ExercisedNode
): Api.TransactionItem | undefined => {
  const arg = node.choiceArgument as { transfer: { sender: string; outputs: ReadonlyArray<{ receiver: string; amount: string }> } }
  const t = arg.transfer
  const involved = t.sender === party || t.outputs.some((o) => o.receiver === party)
  if (!involved) return undefined
  const s = (node.exerciseResult as { summary?: Record<string, string> } | null)?.summary ?? {}
  const selfOutputs = t.outputs.filter((o) => o.receiver === t.sender).reduce((n, o) => n + amountOf(o.amount), 0n)
  const senderChange = amountOf(s["senderChangeAmount"] ?? ZERO_DECIMAL) + selfOutputs - amountOf(s["inputCoinAmount"] ?? ZERO_DECIMAL)
  const root = rootExercise(node.nodeId)
  const instruction = root.choice === "TransferFactory_Transfer" || root.choice === "TransferInstruction_Accept" ? root : undefined
  const tArg = instruction?.choice === "TransferFactory_Transfer" ? (instruction.choiceArgument as { transfer?: { receiver?: string; amount?: string } }).transfer : undefined
  const instructionCid =
    instruction === undefined
      ? undefined
      : instruction.choice === "TransferInstruction_Accept"
        ? instruction.contractId
        : (instruction.exerciseResult as { output?: { value?: { transferInstructionCid?: string } } } | null)?.output?.value?.transferInstructionCid
  const description = (root.choiceArgument as { description?: string | null } | null)?.description
  return {
    transaction_type: "transfer",
    transaction_subtype: subtype(root, root === node ? "transfer" : undefined),
    event_id: eventId,
    date,
    sender: { party: t.sender, amount: formatAmount(senderChange) },
    receivers: t.outputs.filter((o) => o.receiver !== t.sender).map((o) => ({ party: o.receiver, amount: formatAmount(amountOf(o.amount)) })),
    holding_fees: s["holdingFees"] ?? ZERO_DECIMAL,
    app_rewards_used: s["inputAppRewardAmount"] ?? ZERO_DECIMAL,
    validator_rewards_used: s["inputValidatorRewardAmount"] ?? ZERO_DECIMAL,
    sv_rewards_used: ZERO_DECIMAL,
    development_fund_coupons_used: ZERO_DECIMAL,
    ...(tArg?.receiver === undefined ? {} : { transfer_instruction_receiver: tArg.receiver }),
    ...(tArg?.amount === undefined ? {} : { transfer_instruction_amount: tArg.amount }),
    ...(instructionCid === undefined ? {} : { transfer_instruction_cid: instructionCid }),
    ...(typeof description === "string" ? { description } : {})
  }
}
