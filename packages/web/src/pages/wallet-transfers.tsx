/**
 * The wallet's transfers: sending (a transfer offer, a one-step transfer to a receiver with a
 * preapproval, a token-standard transfer), the open offers and the token-standard instructions in
 * and out, with accept, reject and withdraw.
 */
import { useState } from "preact/hooks"
import { sandnet, type Contract, type Wallet } from "../api.ts"
import { field, freshId, partyName, payloadTime } from "../format.ts"
import { useLive, useLoad } from "../live.ts"
import { ActionButton, Amount, Card, Empty, ErrorNote, Id, Time, useUnit } from "../ui.tsx"

type SendKind = "offer" | "preapproved" | "token-standard"

const KINDS: ReadonlyArray<{ readonly kind: SendKind; readonly label: string }> = [
  { kind: "offer", label: "Transfer offer (the receiver accepts)" },
  { kind: "preapproved", label: "One-step transfer (receiver has a preapproval)" },
  { kind: "token-standard", label: "Token-standard transfer" }
]

const send = (api: Wallet, kind: SendKind, receiver: string, amount: string, description: string, minutes: number) => {
  const expires_at = (Date.now() + minutes * 60_000) * 1000
  if (kind === "preapproved") return api.send({ receiver_party_id: receiver, amount, deduplication_id: freshId("send"), ...(description === "" ? {} : { description }) })
  const body = { receiver_party_id: receiver, amount, description, expires_at, tracking_id: freshId(kind) }
  return kind === "offer" ? api.offer(body) : api.transfer(body)
}

export const SendCard = (props: { readonly api: Wallet; readonly party: string }) => {
  const unit = useUnit()
  const [kind, setKind] = useState<SendKind>("offer")
  const [receiver, setReceiver] = useState("")
  const [amount, setAmount] = useState("")
  const [description, setDescription] = useState("")
  const [minutes, setMinutes] = useState(60)
  const [result, setResult] = useState<{ readonly ok: boolean; readonly text: string } | undefined>(undefined)
  const parties = useLoad(sandnet.overview, [])
  const known = (parties.data?.nodes ?? []).flatMap((n) => n.parties).filter((p) => p !== props.party)
  const submit = (e: Event) => {
    e.preventDefault()
    setResult(undefined)
    send(props.api, kind, receiver.trim(), amount.trim(), description, minutes).then(
      () => setResult({ ok: true, text: `Sent ${amount} ${unit} to ${partyName(receiver)}` }),
      (err: unknown) => setResult({ ok: false, text: err instanceof Error ? err.message : String(err) })
    )
  }
  return (
    <Card title="Send">
      <form class="form" onSubmit={submit}>
        <fieldset>
          <legend>How</legend>
          {KINDS.map((k) => (
            <label key={k.kind} class="radio">
              <input type="radio" name="kind" value={k.kind} checked={kind === k.kind} onChange={() => setKind(k.kind)} /> {k.label}
            </label>
          ))}
        </fieldset>
        <label>
          Receiver party
          <input name="receiver" required value={receiver} onInput={(e) => setReceiver(e.currentTarget.value)} list="known-parties" spellcheck={false} />
          <datalist id="known-parties">{known.map((p) => <option key={p} value={p} />)}</datalist>
        </label>
        <label>
          Amount ({unit})
          <input name="amount" required inputMode="decimal" pattern="\d{1,28}(\.\d{1,10})?" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
        </label>
        <label>
          Description
          <input name="description" maxLength={279} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        {kind === "preapproved" ? null : (
          <label>
            Expires in (minutes)
            <input name="expires" type="number" min={1} value={minutes} onInput={(e) => setMinutes(Number(e.currentTarget.value))} />
          </label>
        )}
        <button type="submit" class="btn primary">
          Send
        </button>
        {result === undefined ? null : (
          <p class={`note ${result.ok ? "ok" : "error"}`} role={result.ok ? "status" : "alert"}>
            {result.text}
          </p>
        )}
      </form>
    </Card>
  )
}

const OfferRow = (props: { readonly offer: Contract; readonly party: string; readonly api: Wallet; readonly onError: (e: string | undefined) => void }) => {
  const unit = useUnit()
  const p = props.offer.payload
  const incoming = p["receiver"] === props.party
  const cid = props.offer.contract_id
  const decide = (d: "accept" | "reject" | "withdraw") => () => props.api.decideOffer(cid, d)
  const counterparty = String(incoming ? p["sender"] : p["receiver"])
  const { state } = useLive()
  const expiresAt = payloadTime(p["expiresAt"])
  const expired = state !== undefined && expiresAt !== undefined && Date.parse(expiresAt) <= Date.parse(state.ledger_time)
  return (
    <tr data-testid="offer-row">
      <td>{incoming ? "from" : "to"}</td>
      <td>
        <Id value={counterparty} kind="party" />
      </td>
      <td class="num">
        <Amount value={field(p, "amount", "amount")} unit={unit} />
      </td>
      <td>{String(p["description"] ?? "")}</td>
      <td>
        <Time iso={expiresAt} /> {expired ? <span class="badge bad">expired</span> : null}
      </td>
      <td class="actions">
        {expired ? null : incoming ? (
          <>
            <ActionButton variant="primary" onError={props.onError} onRun={decide("accept")} label={`Accept offer of ${field(p, "amount", "amount") ?? ""}`}>
              Accept
            </ActionButton>
            <ActionButton onError={props.onError} onRun={decide("reject")} label={`Reject offer of ${field(p, "amount", "amount") ?? ""}`}>
              Reject
            </ActionButton>
          </>
        ) : (
          <ActionButton onError={props.onError} onRun={decide("withdraw")} label={`Withdraw offer of ${field(p, "amount", "amount") ?? ""}`}>
            Withdraw
          </ActionButton>
        )}
      </td>
    </tr>
  )
}

export const OffersCard = (props: { readonly api: Wallet; readonly party: string; readonly version: number }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const offers = useLoad(props.api.offers, [props.version])
  const list = offers.data ?? []
  return (
    <Card title="Transfer offers" wide>
      <ErrorNote error={error ?? offers.error} />
      {list.length === 0 ? (
        <Empty>No open offers.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <caption class="sr-only">Open transfer offers, incoming and outgoing</caption>
            <thead>
              <tr>
                <th scope="col">Direction</th>
                <th scope="col">Party</th>
                <th scope="col">Amount</th>
                <th scope="col">Description</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((o) => (
                <OfferRow key={o.contract_id} offer={o} party={props.party} api={props.api} onError={setError} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  )
}

const TransferRow = (props: { readonly transfer: Contract; readonly party: string; readonly api: Wallet; readonly onError: (e: string | undefined) => void }) => {
  const unit = useUnit()
  const t = (props.transfer.payload["transfer"] ?? {}) as Record<string, unknown>
  const incoming = t["receiver"] === props.party
  const amount = field(t, "amount") ?? ""
  const decide = (d: "accept" | "reject" | "withdraw") => () => props.api.decideTransfer(props.transfer.contract_id, d)
  const description = field(t, "meta", "values", "splice.lfdecentralizedtrust.org/reason")
  return (
    <tr data-testid="instruction-row">
      <td>{incoming ? "from" : "to"}</td>
      <td>
        <Id value={String(incoming ? t["sender"] : t["receiver"])} kind="party" />
      </td>
      <td class="num">
        <Amount value={amount} unit={unit} />
      </td>
      <td>{description ?? ""}</td>
      <td>
        <Time iso={payloadTime(t["executeBefore"])} />
      </td>
      <td class="actions">
        {incoming ? (
          <>
            <ActionButton variant="primary" onError={props.onError} onRun={decide("accept")} label={`Accept transfer of ${amount}`}>
              Accept
            </ActionButton>
            <ActionButton onError={props.onError} onRun={decide("reject")} label={`Reject transfer of ${amount}`}>
              Reject
            </ActionButton>
          </>
        ) : (
          <ActionButton onError={props.onError} onRun={decide("withdraw")} label={`Withdraw transfer of ${amount}`}>
            Withdraw
          </ActionButton>
        )}
      </td>
    </tr>
  )
}

export const TransfersCard = (props: { readonly api: Wallet; readonly party: string; readonly version: number }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const transfers = useLoad(props.api.transfers, [props.version])
  const list = transfers.data ?? []
  return (
    <Card title="Token-standard instructions" wide>
      <ErrorNote error={error ?? transfers.error} />
      {list.length === 0 ? (
        <Empty>No pending instructions.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <caption class="sr-only">Pending token-standard transfer instructions, incoming and outgoing</caption>
            <thead>
              <tr>
                <th scope="col">Direction</th>
                <th scope="col">Party</th>
                <th scope="col">Amount</th>
                <th scope="col">Reason</th>
                <th scope="col">Execute before</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((t) => (
                <TransferRow key={t.contract_id} transfer={t} party={props.party} api={props.api} onError={setError} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  )
}
