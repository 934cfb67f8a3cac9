/**
 * The wallet's account: balance, holdings (unlocked and locked, with their rounds and fees),
 * history with each transaction's kind, and the extras (preapproval, app rewards and the featured
 * app right, traffic purchase, tap on a dev net).
 */
import { useState } from "preact/hooks"
import { sandnet, type HistoryItem, type Position, type Wallet } from "../api.ts"
import { entityOf, freshId } from "../format.ts"
import { useLoad } from "../live.ts"
import { ActionButton, Amount, Card, Empty, ErrorNote, Id, Time, useUnit } from "../ui.tsx"

export const BalanceCard = (props: { readonly api: Wallet; readonly version: number }) => {
  const unit = useUnit()
  const balance = useLoad(props.api.balance, [props.version])
  const b = balance.data
  return (
    <Card title="Balance">
      <ErrorNote error={balance.error} />
      <p class="big" data-testid="balance">
        <Amount value={b?.effective_unlocked_qty} unit={unit} />
      </p>
      <dl class="kv">
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

/** What a history item was: its operation, or the choice and template that made it. */
const kindOf = (item: HistoryItem): string =>
  item.transaction_subtype.coin_operation ?? item.transaction_subtype.amulet_operation ?? `${item.transaction_subtype.choice} (${entityOf(item.transaction_subtype.template_id)})`

const HistoryRow = (props: { readonly item: HistoryItem; readonly unit: string }) => {
  const i = props.item
  const updateId = i.event_id.split(":")[0] ?? i.event_id
  return (
    <tr>
      <td>
        <Time iso={i.date} />
      </td>
      <td>
        <span class="badge">{i.transaction_type.replace("_", " ")}</span> {kindOf(i)}
      </td>
      <td class="num">{i.sender === undefined ? "—" : <Amount value={i.sender.amount} unit={props.unit} />}</td>
      <td>
        {(i.receivers ?? []).map((r) => (
          <div key={r.party}>
            <Id value={r.party} kind="party" /> <Amount value={r.amount} unit={props.unit} />
          </div>
        ))}
        {i.details === undefined ? null : <span class="muted">{i.details}</span>}
      </td>
      <td>
        <Id value={updateId} kind="update id" href={`/scan/update/${updateId}`} />
      </td>
    </tr>
  )
}

export const HistoryCard = (props: { readonly api: Wallet; readonly version: number }) => {
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
                <th scope="col">Sender change</th>
                <th scope="col">Receivers</th>
                <th scope="col">Update</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => (
                <HistoryRow key={i.event_id} item={i} unit={unit} />
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

const buyTraffic = async (api: Wallet) => {
  const overview = await sandnet.overview()
  const validator = overview.nodes.find((n) => n.role === "validator")
  const domain = overview.synchronizers[0]
  if (validator === undefined || domain === undefined) throw new Error("no validator or synchronizer to buy traffic for")
  return api.buyTraffic({
    receiving_validator_party_id: validator.operator_party,
    domain_id: domain.synchronizer_id,
    traffic_amount: 200_000,
    tracking_id: freshId("traffic"),
    expires_at: (Date.now() + 3_600_000) * 1000
  })
}

export const ExtrasCard = (props: { readonly api: Wallet; readonly party: string; readonly version: number; readonly featured: boolean }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const overview = useLoad(sandnet.overview, [])
  const rewards = useLoad(props.api.appRewards, [props.version])
  return (
    <Card title="More" wide>
      <ErrorNote error={error} />
      {overview.data?.dev_net === true ? <TapForm api={props.api} onError={setError} /> : null}
      <div class="inline">
        <ActionButton onError={setError} onRun={props.api.createPreapproval}>
          Create transfer preapproval
        </ActionButton>
        <ActionButton onError={setError} onRun={props.api.featureSelf}>
          {props.featured ? "Featured app right granted" : "Grant featured app right"}
        </ActionButton>
        <ActionButton onError={setError} onRun={() => buyTraffic(props.api)}>
          Buy 200,000 bytes of traffic
        </ActionButton>
      </div>
      <p>
        App reward coupons: <strong data-testid="app-rewards">{rewards.data?.length ?? 0}</strong>
      </p>
    </Card>
  )
}
