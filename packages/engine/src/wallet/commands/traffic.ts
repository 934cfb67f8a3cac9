/** Buying traffic for a validator: a user's buy-traffic request under a tracking id (the wallet automation pays it). */
import { Effect } from "effect"
import { InvalidArgument, toIso } from "@sandnet/core"
import { BuyTrafficRequest } from "../../coin/index.ts"
import { Commands } from "../../ledger/interpreter.ts"
import type * as Api from "../api.ts"
import type { WalletContext } from "../context.ts"
import type { WalletError } from "../errors.ts"
import { submitted, type Outcome } from "../outcome.ts"
import { expectSuccess, nowMicros } from "../submission.ts"
import { decide, submitTracked } from "../tracking.ts"

export const createBuyTrafficRequest = (wallet: WalletContext, user: string, request: Api.CreateBuyTrafficRequest): Effect.Effect<Outcome<Api.CreateBuyTrafficRequestResponse>, WalletError> =>
  Effect.gen(function* () {
    const party = yield* wallet.partyOf(user)
    const now = yield* nowMicros
    const hosting = wallet.network.topology.hosting(request.receiving_validator_party_id)
    if (hosting === undefined) return yield* new InvalidArgument({ field: "receiving_validator_party_id", message: "is not a known party" })
    if (hosting.participants.length !== 1) return yield* new InvalidArgument({ field: "receiving_validator_party_id", message: "is hosted on several participants" })
    const synchronizer = wallet.network.topology.synchronizer(request.domain_id)
    if (synchronizer === undefined) return yield* new InvalidArgument({ field: "domain_id", message: "is not a known synchronizer" })
    const rules = wallet.dso.coinRules()
    const min = Number(rules?.payload.configSchedule.initialValue.decentralizedSynchronizer.fees.minTopupAmount ?? "0")
    if (!Number.isSafeInteger(request.traffic_amount) || request.traffic_amount < min) {
      return yield* new InvalidArgument({ field: "traffic_amount", message: `must be a whole number of bytes, at least ${min}` })
    }
    if (!Number.isSafeInteger(request.expires_at) || request.expires_at <= now) return yield* new InvalidArgument({ field: "expires_at", message: "must be a time in the future, in microseconds" })
    const key = yield* decide(wallet, "buyTraffic", party, request.tracking_id)
    const memberId = hosting.participants[0]!.participantUid
    const commandId = `wallet:buy-traffic:${request.tracking_id}`
    const command = Commands.create(BuyTrafficRequest, {
      dso: wallet.network.dso,
      endUserParty: party,
      expiresAt: toIso(request.expires_at),
      trackingId: request.tracking_id,
      trafficAmount: String(request.traffic_amount),
      memberId,
      synchronizerId: synchronizer.synchronizerId,
      migrationId: String(synchronizer.migrationId)
    })
    yield* submitTracked(wallet, party, "buyTraffic", request.tracking_id, key, [party], commandId, [command], [], [])
    return submitted({ commandId, actAs: [party], finish: (c) => expectSuccess(c, (results) => ({ request_contract_id: String(results[0]) })) })
  })

