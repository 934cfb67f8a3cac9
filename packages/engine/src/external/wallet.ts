/**
 * The validator's wallet-admin variant of external party onboarding
 * (`POST /v0/admin/external-party/topology/generate` and `/submit`): hex keys, hex signatures
 * (`r || s`) over each transaction's hash, snake_case fields. Thin adapters over
 * generateExternalPartyTopology and verifyExternalPartyAllocation.
 */
import { InvalidArgument } from "@sandnet/core"
import { Either } from "effect"
import { type VerifiedExternalParty, verifyExternalPartyAllocation } from "./allocate.ts"
import { bytesToBase64, hexToBytes } from "./encoding.ts"
import type { AllocationError } from "./errors.ts"
import { ed25519PublicKeyFromRaw, type Ed25519PublicKey } from "./keys.ts"
import type { SignatureJson } from "./signatures.ts"
import { type GeneratedExternalPartyTopology, generateExternalPartyTopology } from "./topology.ts"

export interface WalletGenerateTopologyRequest {
  readonly party_hint: string
  /** Hex of the raw 32-byte Ed25519 key. */
  readonly public_key: string
}

export interface WalletTopologyTx {
  /** Standard base64 of the serialized transaction. */
  readonly topology_tx: string
  /** Hex of the transaction's hash (multihash, `1220` + 64 hex): what to sign. */
  readonly hash: string
}

export interface WalletGenerateTopologyResponse {
  readonly party_id: string
  readonly topology_txs: ReadonlyArray<WalletTopologyTx>
}

export interface WalletSubmitTopologyRequest {
  readonly public_key: string
  readonly signed_topology_txs: ReadonlyArray<{ readonly topology_tx: string; readonly signed_hash: string }>
}

export interface WalletSubmitTopologyResponse {
  readonly party_id: string
}

/** Parses the wallet API's hex Ed25519 public key; errors name `field`. */
export const parseHexEd25519PublicKey = (hex: string, field = "public_key"): Either.Either<Ed25519PublicKey, InvalidArgument> => {
  const raw = hexToBytes(hex)
  if (raw === undefined) return Either.left(new InvalidArgument({ field, message: "is not hex" }))
  return Either.mapLeft(ed25519PublicKeyFromRaw(raw), (message) => new InvalidArgument({ field, message }))
}

/** A ledger-API Signature from a wallet-API hex signature (`r || s`) by `key`. */
export const walletSignature = (
  key: Ed25519PublicKey,
  signatureHex: string,
  field: string
): Either.Either<SignatureJson, InvalidArgument> => {
  const bytes = hexToBytes(signatureHex)
  if (bytes === undefined) return Either.left(new InvalidArgument({ field, message: "is not hex" }))
  if (bytes.length !== 64)
    return Either.left(new InvalidArgument({ field, message: `an Ed25519 signature has 64 bytes, got ${bytes.length}` }))
  return Either.right({
    format: "SIGNATURE_FORMAT_CONCAT",
    signature: bytesToBase64(bytes),
    signedBy: key.fingerprint,
    signingAlgorithmSpec: "SIGNING_ALGORITHM_SPEC_ED25519"
  })
}

const renameField = (error: InvalidArgument): InvalidArgument =>
  error.field === "partyHint"
    ? new InvalidArgument({ field: "party_hint", message: error.message })
    : error.field.startsWith("publicKey")
      ? new InvalidArgument({ field: "public_key", message: error.message })
      : error

/**
 * Generates the onboarding transactions hosting the party on the validator's participant with
 * Confirmation permission (threshold 1).
 */
export const walletGenerateExternalPartyTopology = (
  request: WalletGenerateTopologyRequest,
  node: { readonly participantUid: string; readonly synchronizerId: string }
): Either.Either<{ readonly response: WalletGenerateTopologyResponse; readonly topology: GeneratedExternalPartyTopology }, InvalidArgument> =>
  Either.gen(function* () {
    const key = yield* parseHexEd25519PublicKey(request.public_key)
    const topology = yield* Either.mapLeft(
      generateExternalPartyTopology({
        synchronizerId: node.synchronizerId,
        partyHint: request.party_hint,
        publicKey: { format: "CRYPTO_KEY_FORMAT_RAW", keyData: bytesToBase64(key.raw), keySpec: "SIGNING_KEY_SPEC_EC_CURVE25519" },
        localParticipantUid: node.participantUid
      }),
      renameField
    )
    return {
      response: {
        party_id: topology.partyId,
        topology_txs: topology.transactions.map((t) => ({ topology_tx: bytesToBase64(t.serialized), hash: t.hash.hex }))
      },
      topology
    }
  })

/** Verifies the signed transactions; each `signed_hash` is the key's signature over that transaction's hash. */
export const walletSubmitExternalPartyTopology = (
  request: WalletSubmitTopologyRequest,
  node: { readonly participantUid?: string | undefined } = {}
): Either.Either<
  { readonly response: WalletSubmitTopologyResponse; readonly party: VerifiedExternalParty },
  AllocationError | InvalidArgument
> =>
  Either.gen(function* () {
    const key = yield* parseHexEd25519PublicKey(request.public_key)
    const onboardingTransactions: Array<{ transaction: string; signatures: ReadonlyArray<SignatureJson> }> = []
    for (const [i, signed] of request.signed_topology_txs.entries()) {
      const signature = yield* walletSignature(key, signed.signed_hash, `signed_topology_txs[${i}].signed_hash`)
      onboardingTransactions.push({ transaction: signed.topology_tx, signatures: [signature] })
    }
    const party = yield* verifyExternalPartyAllocation({
      onboardingTransactions,
      localParticipantUid: node.participantUid
    })
    return { response: { party_id: party.partyId }, party }
  })
