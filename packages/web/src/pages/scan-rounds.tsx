/**
 * The explorer's economy: the rounds (open, issuing, closed) with their parameters and the total
 * supply and burn over time as a chart (uPlot).
 */
import { useEffect, useRef } from "preact/hooks"
import uPlot from "uplot"
import { sandnet, scan, type Contract, type SupplyPoint } from "../api.ts"
import { field, payloadTime } from "../format.ts"
import { useLoad } from "../live.ts"
import { Amount, Card, Empty, ErrorNote, Id, Time, useUnit } from "../ui.tsx"

interface RoundRow {
  readonly state: "open" | "issuing" | "closed"
  readonly contract: Contract
}

const roundOf = (c: Contract): number => Number(field(c.payload, "round", "number") ?? -1)

const loadRounds = async (): Promise<ReadonlyArray<RoundRow>> => {
  const [current, closed] = await Promise.all([scan.rounds(), scan.closedRounds()])
  const rows: Array<RoundRow> = [
    ...Object.values(current.open_mining_rounds).map((c) => ({ state: "open" as const, contract: c.contract })),
    ...Object.values(current.issuing_mining_rounds).map((c) => ({ state: "issuing" as const, contract: c.contract })),
    ...closed.map((c) => ({ state: "closed" as const, contract: c }))
  ]
  return rows.sort((a, b) => roundOf(b.contract) - roundOf(a.contract))
}

const RoundDetails = (props: { readonly row: RoundRow; readonly unit: string }) => {
  const p = props.row.contract.payload
  if (props.row.state === "open")
    return (
      <>
        opens <Time iso={payloadTime(p["opensAt"])} />, closes <Time iso={payloadTime(p["targetClosesAt"])} />, price {field(p, "coinPrice") ?? field(p, "amuletPrice") ?? "—"} USD
      </>
    )
  if (props.row.state === "issuing")
    return (
      <>
        per app coupon <Amount value={field(p, "issuancePerFeaturedAppRewardCoupon") ?? field(p, "issuancePerUnfeaturedAppRewardCoupon")} unit={props.unit} />, per validator coupon{" "}
        <Amount value={field(p, "issuancePerValidatorRewardCoupon")} unit={props.unit} />
      </>
    )
  return <>closed</>
}

export const RoundsCard = (props: { readonly version: number }) => {
  const unit = useUnit()
  const rounds = useLoad(loadRounds, [props.version])
  return (
    <Card title="Rounds" wide>
      <ErrorNote error={rounds.error} />
      {(rounds.data ?? []).length === 0 ? (
        <Empty>No rounds yet.</Empty>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Round</th>
                <th scope="col">State</th>
                <th scope="col">Parameters</th>
                <th scope="col">Contract</th>
              </tr>
            </thead>
            <tbody>
              {rounds.data?.map((r) => (
                <tr key={r.contract.contract_id}>
                  <td class="num">{roundOf(r.contract)}</td>
                  <td>
                    <span class={`badge ${r.state === "open" ? "ok" : ""}`}>{r.state}</span>
                  </td>
                  <td>
                    <RoundDetails row={r} unit={unit} />
                  </td>
                  <td>
                    <Id value={r.contract.contract_id} kind="contract id" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  )
}

const css = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888"

const plotData = (points: ReadonlyArray<SupplyPoint>): uPlot.AlignedData => [
  points.map((p) => new Date(p.record_time).getTime() / 1000),
  points.map((p) => Number(p.total_supply)),
  points.map((p) => Number(p.cumulative_burned))
]

const Chart = (props: { readonly points: ReadonlyArray<SupplyPoint>; readonly unit: string }) => {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = box.current
    if (el === null) return
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 260,
        series: [{}, { label: `Total supply (${props.unit})`, stroke: css("--accent"), width: 2 }, { label: `Burned (${props.unit})`, stroke: css("--danger"), width: 2 }],
        axes: [{ stroke: css("--muted") }, { stroke: css("--muted"), size: 80 }],
        legend: { live: false }
      },
      plotData(props.points),
      el
    )
    const resize = () => plot.setSize({ width: Math.max(280, el.clientWidth), height: 260 })
    window.addEventListener("resize", resize)
    return () => {
      window.removeEventListener("resize", resize)
      plot.destroy()
    }
  }, [props.points, props.unit])
  return <div ref={box} class="chart" role="img" aria-label={`Total supply and burned ${props.unit} over time`} />
}

export const SupplyCard = (props: { readonly version: number }) => {
  const unit = useUnit()
  const supply = useLoad(sandnet.supply, [props.version])
  const points = supply.data ?? []
  const last = points.at(-1)
  return (
    <Card title="Supply and burn" wide>
      <ErrorNote error={supply.error} />
      <p>
        Total supply <Amount value={last?.total_supply} unit={unit} /> · minted <Amount value={last?.cumulative_minted} unit={unit} /> · burned{" "}
        <Amount value={last?.cumulative_burned} unit={unit} />
      </p>
      {points.length < 2 ? <Empty>Not enough history for a chart yet (tap or transfer some coin).</Empty> : <Chart points={points} unit={unit} />}
    </Card>
  )
}
