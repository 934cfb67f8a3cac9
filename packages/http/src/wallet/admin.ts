/**
 * Validator administration on the wallet surface (`/api/validator/v0/admin/...`, W3): users and
 * external parties (splice-validator-internal.yaml). Every endpoint needs an administrator
 * (context.ts `requireWalletAdmin`: ParticipantAdmin, or a user acting as the operator).
 *
 *   users              POST /v0/admin/users (onboard), GET /v0/admin/users, POST /v0/admin/users/offboard?username=
 *   external parties   POST /v0/admin/external-party/topology/generate, /submit (hex keys and signatures)
 *                      POST, GET /v0/admin/external-party/setup-proposal, .../prepare-accept, .../submit-accept
 *                      POST /v0/admin/external-party/transfer-preapproval/prepare-send, .../submit-send
 *                      GET  /v0/admin/external-party/balance?party_id=
 *   preapprovals       GET /v0/admin/transfer-preapprovals, GET, DELETE /v0/admin/transfer-preapprovals/by-party/{receiver_party}
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { External, ExternalPartyWallet, LedgerApi, PreapprovalNotFound } from "@sandnet/engine"
import { Effect } from "effect"
import { InvalidRequest, type HandlerError } from "../errors.ts"
import { fromExternalError, partyExists } from "../ledger/context.ts"
import { annotateEndpoint, bind, orFail, Surfaces, mergeRoutes } from "../surface.ts"
import {
  checkUserName,
  deleteLedgerUser,
  ensureLedgerUser,
  requireWalletAdmin,
  toHandlerError,
  walletCommand,
  walletRead,
  withWallet
} from "./context.ts"
import * as S from "./encoding.ts"

/** Annotates an endpoint with its description (for the OpenAPI document). */
const describe = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(endpoint: E, description: string): E => annotateEndpoint(endpoint, { description })

// ---------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------

export const OnboardUser = describe(
  HttpApiEndpoint.post("onboardUser", "/v0/admin/users").setPayload(S.OnboardUserRequest).addSuccess(S.OnboardUserResponse),
  "Onboards a user: a fresh party (hint = name) unless party_id names one hosted here (createPartyIfMissing allocates it in this validator's namespace), its wallet contracts, and its ledger API user (primary party, CanActAs, CanReadAs). Onboarding a known user answers its party; with another party_id it is 409."
)
export const ListUsers = HttpApiEndpoint.get("listUsers", "/v0/admin/users").addSuccess(S.ListUsersResponse)
export const OffboardUser = describe(
  HttpApiEndpoint.post("offboardUser", "/v0/admin/users/offboard").setUrlParams(S.UsernameQuery).addSuccess(S.Ok),
  "Offboards a user: archives its ValidatorRight and deletes its ledger API user (kept when it is an administrator). 404 for unknown users; the operator's wallet user cannot be offboarded (400)."
)
export const GenerateExternalPartyTopology = describe(
  HttpApiEndpoint.post("generateExternalPartyTopology", "/v0/admin/external-party/topology/generate")
    .setPayload(S.GenerateExternalPartyTopologyRequest)
    .addSuccess(S.GenerateExternalPartyTopologyResponse),
  "The three onboarding transactions of an external party hosted here with Confirmation (namespace delegation, party-to-key mapping, party-to-participant), each with the hash to sign. docs/external-parties.md has the byte layouts."
)
export const SubmitExternalPartyTopology = describe(
  HttpApiEndpoint.post("submitExternalPartyTopology", "/v0/admin/external-party/topology/submit")
    .setPayload(S.SubmitExternalPartyTopologyRequest)
    .addSuccess(S.SubmitExternalPartyTopologyResponse),
  "Verifies each transaction's signature (Ed25519 over its hash) and hosts the party. A bad signature, a wrong key or a changed transaction is 400 and nothing is hosted; an existing party is 409."
)
export const CreateExternalPartySetupProposal = describe(
  HttpApiEndpoint.post("createExternalPartySetupProposal", "/v0/admin/external-party/setup-proposal")
    .setPayload(S.CreateExternalPartySetupProposalRequest)
    .addSuccess(S.CreateExternalPartySetupProposalResponse),
  "The operator's ExternalPartySetupProposal for an external party hosted here (404 otherwise); 409 when a proposal or a TransferPreapproval exists."
)
export const ListExternalPartySetupProposals = HttpApiEndpoint.get("listExternalPartySetupProposals", "/v0/admin/external-party/setup-proposal").addSuccess(
  S.ListContractsWithStateResponse("ListExternalPartySetupProposalsResponse")
)
export const PrepareAcceptExternalPartySetupProposal = describe(
  HttpApiEndpoint.post("prepareAcceptExternalPartySetupProposal", "/v0/admin/external-party/setup-proposal/prepare-accept")
    .setPayload(S.PrepareAcceptExternalPartySetupProposalRequest)
    .addSuccess(S.PrepareAcceptExternalPartySetupProposalResponse),
  "Prepares the party's acceptance of its proposal: the transaction and the hash it signs. 404 without a proposal, 400 when contract_id is not the party's proposal."
)
export const SubmitAcceptExternalPartySetupProposal = describe(
  HttpApiEndpoint.post("submitAcceptExternalPartySetupProposal", "/v0/admin/external-party/setup-proposal/submit-accept")
    .setPayload(S.SubmitExternalRequest("SubmitAcceptExternalPartySetupProposalRequest"))
    .addSuccess(S.SubmitAcceptExternalPartySetupProposalResponse),
  "Submits the signed acceptance; it executes as prepared and creates the party's TransferPreapproval. A bad signature or another key is 400 and nothing happens."
)
export const PrepareTransferPreapprovalSend = describe(
  HttpApiEndpoint.post("prepareTransferPreapprovalSend", "/v0/admin/external-party/transfer-preapproval/prepare-send")
    .setPayload(S.PrepareTransferPreapprovalSendRequest)
    .addSuccess(S.PrepareTransferPreapprovalSendResponse),
  "Prepares a one-step transfer of the external party's coin through the receiver's TransferPreapproval (400 when the receiver has none or the party cannot pay). nonce deduplicates (one transfer per sender and nonce); expires_at is checked at submission."
)
export const SubmitTransferPreapprovalSend = describe(
  HttpApiEndpoint.post("submitTransferPreapprovalSend", "/v0/admin/external-party/transfer-preapproval/submit-send")
    .setPayload(S.SubmitExternalRequest("SubmitTransferPreapprovalSendRequest"))
    .addSuccess(S.SubmitTransferPreapprovalSendResponse),
  "Submits the signed transfer; it executes as prepared (a stale one is 409) and its update carries external_transaction_hash = tx_hash."
)
export const GetExternalPartyBalance = HttpApiEndpoint.get("getExternalPartyBalance", "/v0/admin/external-party/balance")
  .setUrlParams(S.PartyIdQuery)
  .addSuccess(S.ExternalPartyBalanceResponse)
export const ListTransferPreapprovals = HttpApiEndpoint.get("listTransferPreapprovals", "/v0/admin/transfer-preapprovals").addSuccess(
  S.ListContractsWithStateResponse("ListTransferPreapprovalsResponse")
)
export const LookupTransferPreapprovalByParty = HttpApiEndpoint.get("lookupTransferPreapprovalByParty", "/v0/admin/transfer-preapprovals/by-party/:receiver_party")
  .setPath(S.ReceiverPartyPath)
  .addSuccess(S.LookupTransferPreapprovalByPartyResponse)
export const CancelTransferPreapprovalByParty = HttpApiEndpoint.del("cancelTransferPreapprovalByParty", "/v0/admin/transfer-preapprovals/by-party/:receiver_party")
  .setPath(S.ReceiverPartyPath)
  .addSuccess(S.Ok)

const ENDPOINTS = [
  OnboardUser,
  ListUsers,
  OffboardUser,
  GenerateExternalPartyTopology,
  SubmitExternalPartyTopology,
  CreateExternalPartySetupProposal,
  ListExternalPartySetupProposals,
  PrepareAcceptExternalPartySetupProposal,
  SubmitAcceptExternalPartySetupProposal,
  PrepareTransferPreapprovalSend,
  SubmitTransferPreapprovalSend,
  GetExternalPartyBalance,
  ListTransferPreapprovals,
  LookupTransferPreapprovalByParty,
  CancelTransferPreapprovalByParty
] as const

export const AdminGroup = ENDPOINTS.reduce(
  (group, endpoint) => group.add(endpoint) as unknown as HttpApiGroup.HttpApiGroup<"validatorAdmin", HttpApiEndpoint.HttpApiEndpoint.Any>,
  HttpApiGroup.make("validatorAdmin") as unknown as HttpApiGroup.HttpApiGroup<"validatorAdmin", HttpApiEndpoint.HttpApiEndpoint.Any>
).annotate(OpenApi.Title, "Validator administration")

// ---------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------

const w = Surfaces.wallet

/** Runs `body` after the administrator check. */
const admin = <A, R>(body: Effect.Effect<A, HandlerError, R>) => Effect.zipRight(requireWalletAdmin, body)


export const AdminRoutes = mergeRoutes(
  bind(w, OnboardUser, ({ payload }) =>
    admin(
      Effect.gen(function* () {
        yield* checkUserName(payload.name, "name")
        const reply = yield* walletCommand((view) => view.node.onboardUser(payload))
        yield* ensureLedgerUser(payload.name, reply.party_id)
        return reply
      })
    )
  ),
  bind(w, ListUsers, () => admin(walletRead((view) => view.wallet.listUsers()))),
  bind(w, OffboardUser, ({ urlParams }) =>
    admin(
      Effect.gen(function* () {
        const operatorUser = yield* withWallet((view) => Effect.succeed(view.node.config.validatorWalletUser))
        if (urlParams.username === operatorUser) {
          return yield* new InvalidRequest({ location: "query parameter", parameter: "username", detail: "the validator operator's wallet user cannot be offboarded" })
        }
        yield* walletCommand((view) => view.node.offboardUser(urlParams.username))
        yield* deleteLedgerUser(urlParams.username)
      })
    )
  ),
  bind(w, GenerateExternalPartyTopology, ({ payload }) =>
    admin(
      withWallet((view) =>
        orFail(
          External.walletGenerateExternalPartyTopology(payload, {
            participantUid: LedgerApi.participantUid(view.node.participant),
            synchronizerId: view.engine.network.synchronizers[0]!.info.synchronizerId
          }),
          fromExternalError
        ).pipe(Effect.map((generated) => generated.response))
      )
    )
  ),
  bind(w, SubmitExternalPartyTopology, ({ payload }) =>
    admin(
      withWallet((view) =>
        Effect.gen(function* () {
          const verified = yield* orFail(External.walletSubmitExternalPartyTopology(payload, { participantUid: LedgerApi.participantUid(view.node.participant) }), fromExternalError)
          const party = yield* orFail(LedgerApi.hostExternalParty(view.engine.network, view.engine.topology, verified.party, view.engine.clock.now), (error): HandlerError =>
            error._tag === "PartyAlreadyExists" ? partyExists(error) : new InvalidRequest({ location: "body", detail: `signed_topology_txs: ${error.message}` })
          )
          return { party_id: party }
        })
      )
    )
  ),
  bind(w, CreateExternalPartySetupProposal, ({ payload }) =>
    admin(walletCommand((view) => ExternalPartyWallet.createExternalPartySetupProposal(view.node, payload, view.now)))
  ),
  bind(w, ListExternalPartySetupProposals, () => admin(walletRead((view) => Effect.succeed(ExternalPartyWallet.listExternalPartySetupProposals(view.node))))),
  bind(w, PrepareAcceptExternalPartySetupProposal, ({ payload }) =>
    admin(walletRead((view) => ExternalPartyWallet.prepareAcceptExternalPartySetupProposal(view.node, payload, view.now)))
  ),
  bind(w, SubmitAcceptExternalPartySetupProposal, ({ payload }) =>
    admin(walletCommand((view) => ExternalPartyWallet.submitAcceptExternalPartySetupProposal(view.node, payload.submission, view.now)))
  ),
  bind(w, PrepareTransferPreapprovalSend, ({ payload }) =>
    admin(walletRead((view) => ExternalPartyWallet.prepareTransferPreapprovalSend(view.node, payload, view.now)))
  ),
  bind(w, SubmitTransferPreapprovalSend, ({ payload }) =>
    admin(walletCommand((view) => ExternalPartyWallet.submitTransferPreapprovalSend(view.node, payload.submission, view.now)))
  ),
  bind(w, GetExternalPartyBalance, ({ urlParams }) =>
    admin(
      withWallet((view) =>
        orFail(ExternalPartyWallet.externalPartyBalance(view.node, urlParams.party_id, view.now), (error) => toHandlerError(error, "query parameter"))
      )
    )
  ),
  bind(w, ListTransferPreapprovals, () =>
    admin(walletRead((view) => Effect.succeed({ contracts: ExternalPartyWallet.listOperatorTransferPreapprovals(view.node) })))
  ),
  bind(w, LookupTransferPreapprovalByParty, ({ path }) =>
    admin(
      walletRead((view) => {
        const found = ExternalPartyWallet.lookupTransferPreapproval(view.node, path.receiver_party, view.now)
        return found === undefined ? Effect.fail(new PreapprovalNotFound({ receiver: path.receiver_party })) : Effect.succeed({ transfer_preapproval: found })
      })
    )
  ),
  bind(w, CancelTransferPreapprovalByParty, ({ path }) =>
    admin(walletCommand((view) => ExternalPartyWallet.cancelTransferPreapprovalByParty(view.node, path.receiver_party, view.now)))
  )
)

