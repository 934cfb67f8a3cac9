/**
 * A wallet's checkpoint: its journaled state (wallet journal.ts) as data, and the history index
 * it derived from its participant's log (each user party's offsets), up to the participant's
 * ledger end then. A wallet built from it (`WalletNode` with a checkpoint) takes the state, folds
 * the journal events after it, and indexes only the log after that ledger end: a restart no longer
 * walks (and inflates) the whole update log.
 *
 * The index is the one the wallet kept: a party that became a user later than some of its
 * transactions has the offsets the live wallet had (from its onboarding on), where a wallet
 * rebuilt from the whole log indexes every transaction the party ever witnessed. A party that
 * became a user after the checkpoint is indexed over the whole log, as a rebuild does.
 */
import { invariant, type PartyId } from "@sandnet/core"
import type { WalletContext } from "./context.ts"
import { indexHistory } from "./history.ts"
import { walletStateImage, type WalletStateImage } from "./journal.ts"

/** The checkpoint's format: a restore refuses another (the journal is replayed whole then). 2: the record books' finished places as blocks. */
export const WALLET_CHECKPOINT_VERSION = 2

export interface WalletCheckpoint {
  readonly version: typeof WALLET_CHECKPOINT_VERSION
  readonly state: WalletStateImage
  /** The participant's ledger end the history index covers. */
  readonly ledgerEnd: number
  /** The parties the index covered (the users' then). */
  readonly historyParties: ReadonlyArray<PartyId>
  readonly historyOffsets: ReadonlyArray<readonly [PartyId, ReadonlyArray<number>]>
}

export const walletCheckpointOf = (wallet: WalletContext): WalletCheckpoint => ({
  version: WALLET_CHECKPOINT_VERSION,
  state: walletStateImage(wallet.state),
  ledgerEnd: wallet.participant.logic.ledgerEnd,
  historyParties: [...wallet.state.userOfParty.keys()],
  historyOffsets: [...wallet.historyOffsets].map(([party, offsets]) => [party, offsets.slice()] as const)
})

export const checkWalletCheckpoint = (checkpoint: WalletCheckpoint): void =>
  invariant(checkpoint.version === WALLET_CHECKPOINT_VERSION, () => `a wallet checkpoint of version ${checkpoint.version} (this engine reads ${WALLET_CHECKPOINT_VERSION})`)

/**
 * The history index of a wallet whose state is folded (checkpoint, then the events after it):
 * the checkpoint's offsets of the parties that are users now, the whole log for the user parties
 * it did not cover, then the log after its ledger end for every user party.
 */
export const restoreHistoryIndex = (wallet: WalletContext, checkpoint: WalletCheckpoint): void => {
  const log = wallet.participant.logic.log
  invariant(checkpoint.ledgerEnd <= log.length, () => `a wallet checkpoint at ledger end ${checkpoint.ledgerEnd}, past its participant's ${log.length}`)
  for (const [party, offsets] of checkpoint.historyOffsets) if (wallet.state.userOfParty.has(party)) wallet.historyOffsets.set(party, offsets.slice())
  const covered = new Set(checkpoint.historyParties)
  const late = new Set([...wallet.state.userOfParty.keys()].filter((party) => !covered.has(party)))
  if (late.size > 0) for (let i = 0; i < checkpoint.ledgerEnd; i++) indexHistory(wallet, log.at(i)!, late)
  for (let i = checkpoint.ledgerEnd; i < log.length; i++) indexHistory(wallet, log.at(i)!)
}
