/**
 * The wallet's account: balance, holdings (unlocked and locked, with their rounds and fees),
 * history with each transaction's kind and the change it made, what helps receiving (preapproval,
 * featured app right and app rewards), and tap (dev nets) and traffic purchase.
 */
import { useState } from "preact/hooks"
import { sandnet, scan, type HistoryItem, type Position, type Wallet } from "../api.ts"
import { changeFor, field, freshId, historyKind } from "../format.ts"
import { useLoad } from "../live.ts"
import { ActionButton, Amount, Card, Empty, ErrorNote, Id, Time, useInstrument, useUnit } from "../ui.tsx"

export const BalanceCard = (props: { readonly api: Wallet; readonly version: number }) => {
  const instrument = useInstrument()
  const unit = instrument?.symbol ?? ""
  const balance = useLoad(props.api.balance, [props.version])
  const b = balance.data
  return (
    <Card title="Balance">
      <ErrorNote error={balance.error} />
      <p class="big" data-testid="balance">
        <Amount value={b?.effective_unlocked_qty} unit={unit} />
      </p>
      <dl class="kv">
        <dt>Instrument</dt>
        <dd data-testid="instrument">{instrument?.name ?? "—"}</dd>
        <dt>Locked</dt>
        <dd>
          <Amount value={b?.effective_locked_qty} unit={unit} />
        </dd>
        <dt>Holding fees</dt>
        <dd>
          <Amount value={b?.total_holding_fees} unit={unit} />
        </dd>
        <dt>Round</dt>
        <dd>{b?.round ?? "—"}</dd>
      </dl>
    </Card>
  )
}

const PositionRows = (props: { readonly positions: ReadonlyArray<Position>; readonly locked: boolean; readonly unit: string }) => (
  <>
    {props.positions.map((p) => (
      <tr key={p.contract.contract.contract_id}>
        <td>{props.locked ? <span class="badge">locked</span> : "unlocked"}</td>
        <td>
          <Id value={p.contract.contract.contract_id} kind="contract id" />
        </td>
        <td class="num">
          <Amount value={p.effective_amount} unit={props.unit} />
        </td>
        <td class="num">{p.round}</td>
        <td class="num">
          <Amount value={p.accrued_holding_fee} unit={props.unit} />
        </td>
      </tr>
    ))}
  </>
)

export const HoldingsCard = (props: { readonly api: Wallet; readonly version: number }) => {
  const unit = useUnit()
  const holdings = useLoad(props.api.holdings, [props.version])
  const unlocked = holdings.data?.amulets ?? []
  const locked = holdings.data?.locked_amulets ?? []
  return (
    <Card title="Holdings" wide>
      <ErrorNote error={holdings.error} />
      {unlocked.length + locked.length === 0 ? (
        <Empty>No holdings.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">State</th>
                <th scope="col">Contract</th>
                <th scope="col">Amount</th>
                <th scope="col">Round</th>
                <th scope="col">Accrued fee</th>
              </tr>
            </thead>
            <tbody>
              <PositionRows positions={unlocked} locked={false} unit={unit} />
              <PositionRows positions={locked} locked unit={unit} />
            </tbody>
          </table>
        </div>
      )}
    </Card>
  )
}

/** The other parties of a history item: its sender when that is not the user, and its receivers. */
const counterparties = (item: HistoryItem, party: string): ReadonlyArray<string> => {
  const all = [
    ...(item.sender === undefined ? [] : [item.sender.party]),
    ...(item.receivers ?? []).map((r) => r.party),
    ...(item.transfer_instruction_receiver === undefined ? [] : [item.transfer_instruction_receiver])
  ]
  return [...new Set(all.filter((p) => p !== party))]
}

const HistoryRow = (props: { readonly item: HistoryItem; readonly party: string; readonly unit: string }) => {
  const i = props.item
  const updateId = i.event_id.split(":")[0] ?? i.event_id
  const change = changeFor(props.party, i)
  const negative = change?.startsWith("-") === true
  const zero = change !== undefined && /^-?0(\.0*)?$/.test(change)
  return (
    <tr data-testid="history-row">
      <td>
        <Time iso={i.date} />
      </td>
      <td>
        <strong data-testid="history-kind">{historyKind(i.transaction_subtype)}</strong> <span class="badge">{i.transaction_type.replace("_", " ")}</span>
        {i.details === undefined ? null : <div class="muted">{i.details}</div>}
      </td>
      <td class={`num ${change === undefined || zero ? "" : negative ? "out" : "in"}`}>
        {change === undefined ? "—" : <Amount value={zero ? change.replace(/^-/, "") : negative ? change : `+${change}`} unit={props.unit} />}
      </td>
      <td>
        {counterparties(i, props.party).map((p) => (
          <div key={p}>
            <Id value={p} kind="party" href={`/scan/party/${encodeURIComponent(p)}`} />
          </div>
        ))}
      </td>
      <td>
        <Id value={updateId} kind="update id" href={`/scan/update/${updateId}`} />
      </td>
    </tr>
  )
}

export const HistoryCard = (props: { readonly api: Wallet; readonly party: string; readonly version: number }) => {
  const unit = useUnit()
  const history = useLoad(() => props.api.history(50), [props.version])
  const items = history.data ?? []
  return (
    <Card title="History" wide>
      <ErrorNote error={history.error} />
      {items.length === 0 ? (
        <Empty>No transactions yet.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col" class="num">Your change</th>
                <th scope="col">With</th>
                <th scope="col">Update</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => (
                <HistoryRow key={i.event_id} item={i} party={props.party} unit={unit} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  )
}

const TapForm = (props: { readonly api: Wallet; readonly onError: (e: string | undefined) => void }) => {
  const unit = useUnit()
  const [amount, setAmount] = useState("100")
  return (
    <div class="inline">
      <label>
        Tap amount ({unit})
        <input name="tap" inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
      </label>
      <ActionButton variant="primary" onError={props.onError} onRun={() => props.api.tap(amount)}>
        Tap
      </ActionButton>
    </div>
  )
}

const buyTraffic = async (api: Wallet, bytes: number) => {
  const overview = await sandnet.overview()
  const validator = overview.nodes.find((n) => n.role === "validator")
  const domain = overview.synchronizers[0]
  if (validator === undefined || domain === undefined) throw new Error("no validator or synchronizer to buy traffic for")
  if (!Number.isInteger(bytes) || bytes <= 0) throw new Error("the traffic amount is a whole number of bytes above zero")
  return api.buyTraffic({
    receiving_validator_party_id: validator.operator_party,
    domain_id: domain.synchronizer_id,
    traffic_amount: bytes,
    tracking_id: freshId("traffic"),
    expires_at: (Date.now() + 3_600_000) * 1000
  })
}

const TrafficForm = (props: { readonly api: Wallet; readonly onError: (e: string | undefined) => void; readonly onDone: (text: string) => void }) => {
  const [bytes, setBytes] = useState("200000")
  return (
    <div class="inline">
      <label>
        Traffic (bytes) for the validator
        <input name="traffic" inputMode="numeric" value={bytes} onInput={(e) => setBytes(e.currentTarget.value)} />
      </label>
      <ActionButton onError={props.onError} onRun={() => buyTraffic(props.api, Number(bytes)).then(() => props.onDone(`Asked to buy ${Number(bytes).toLocaleString("en")} bytes of traffic`))}>
        Buy traffic
      </ActionButton>
    </div>
  )
}

/** Tap (dev nets only) and traffic purchase. */
export const TopUpCard = (props: { readonly api: Wallet }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const [done, setDone] = useState<string | undefined>(undefined)
  const overview = useLoad(sandnet.overview, [])
  return (
    <Card title="Tap and traffic">
      <ErrorNote error={error} />
      {overview.data?.dev_net === true ? <TapForm api={props.api} onError={setError} /> : <p class="muted">Tap is for dev nets only.</p>}
      <TrafficForm api={props.api} onError={setError} onDone={setDone} />
      {done === undefined ? null : (
        <p class="note ok" role="status">
          {done}
        </p>
      )}
    </Card>
  )
}

const sumOf = (amounts: ReadonlyArray<string | undefined>): string =>
  changeFor("", { receivers: amounts.map((amount) => ({ party: "", amount: amount ?? "0" })) }) ?? "0"

/** What helps the user receive: the transfer preapproval, the featured app right and its app reward coupons. */
export const ReceivingCard = (props: { readonly api: Wallet; readonly party: string; readonly version: number; readonly featured: boolean }) => {
  const unit = useUnit()
  const [error, setError] = useState<string | undefined>(undefined)
  const preapproval = useLoad(() => scan.preapproval(props.party).then((r) => r.transfer_preapproval, () => undefined), [props.party, props.version])
  const rewards = useLoad(props.api.appRewards, [props.version])
  const coupons = rewards.data ?? []
  return (
    <Card title="Receiving and rewards">
      <ErrorNote error={error ?? rewards.error} />
      <dl class="kv">
        <dt>Preapproval</dt>
        <dd data-testid="preapproval">
          {preapproval.data === undefined ? (
            <ActionButton onError={setError} onRun={props.api.createPreapproval}>
              Create transfer preapproval
            </ActionButton>
          ) : (
            <>
              <span class="badge ok">active</span> <Id value={preapproval.data.contract.contract_id} kind="contract id" />
            </>
          )}
        </dd>
        <dt>Featured app</dt>
        <dd data-testid="featured">
          {props.featured ? (
            <span class="badge ok">featured</span>
          ) : (
            <ActionButton onError={setError} onRun={props.api.featureSelf}>
              Grant featured app right
            </ActionButton>
          )}
        </dd>
        <dt>App rewards</dt>
        <dd>
          <strong data-testid="app-rewards">{coupons.length}</strong> {coupons.length === 1 ? "coupon" : "coupons"},{" "}
          <Amount value={sumOf(coupons.map((c) => field(c.payload, "amount")))} unit={unit} />
        </dd>
      </dl>
      <p class="muted">With a preapproval others pay you in one step; reward coupons are minted into holdings automatically.</p>
    </Card>
  )
}
