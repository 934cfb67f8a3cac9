/**
 * `/`: what is running (synchronizers, super validators, validators and their parties), the dev
 * users with a button that copies a token for each, links to the surfaces and the ledger time.
 */
import { sandnet, type NodeInfo, type Overview } from "../api.ts"
import { partyName } from "../format.ts"
import { useLive, useLoad } from "../live.ts"
import { ActionButton, Card, Empty, ErrorNote, Id, Link, Time } from "../ui.tsx"

const NodeCard = (props: { readonly node: NodeInfo }) => (
  <li class="node">
    <div class="node-head">
      <strong>{props.node.name}</strong> <span class={`badge ${props.node.role === "validator" ? "" : "accent"}`}>{props.node.role}</span>
    </div>
    <dl class="kv">
      <dt>Participant</dt>
      <dd>
        <Id value={props.node.participant_id} kind="participant id" />
      </dd>
      <dt>Operator</dt>
      <dd>
        <Id value={props.node.operator_party} kind="party" href={`/scan/party/${encodeURIComponent(props.node.operator_party)}`} />
      </dd>
      <dt>Parties</dt>
      <dd>
        <ul class="plain">
          {props.node.parties.map((p) => (
            <li key={p}>
              <Id value={p} kind="party" href={`/scan/party/${encodeURIComponent(p)}`} />
            </li>
          ))}
        </ul>
      </dd>
    </dl>
  </li>
)

const CopyToken = (props: { readonly user: string }) => (
  <ActionButton
    label={`Copy token for ${props.user}`}
    onRun={async () => {
      const token = await sandnet.devToken(props.user)
      await navigator.clipboard?.writeText(token).catch(() => undefined)
    }}
  >
    Copy token
  </ActionButton>
)

const Users = (props: { readonly overview: Overview }) => {
  if (!props.overview.dev_tokens) return <Empty>This node checks tokens against its own secret or an identity provider: log in with a token you were given.</Empty>
  if (props.overview.users.length === 0) return <Empty>No users yet.</Empty>
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Primary party</th>
            <th scope="col">Token</th>
          </tr>
        </thead>
        <tbody>
          {props.overview.users.map((u) => (
            <tr key={u.id}>
              <td>{u.id}</td>
              <td>{u.primary_party === "" ? "—" : <Id value={u.primary_party} kind="party" href={`/scan/party/${encodeURIComponent(u.primary_party)}`} />}</td>
              <td>
                <CopyToken user={u.id} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const Surfaces = () => (
  <ul class="links">
    <li>
      <Link href="/wallet">Wallet</Link> — balances, transfers, offers, history
    </li>
    <li>
      <Link href="/scan">Scan</Link> — rounds, supply, updates and their verdicts, parties
    </li>
    <li>
      <Link href="/dev">Developer console</Link> — time, snapshots, reset, users, request log, health
    </li>
    <li>
      <a href="/docs">API documents</a> — the OpenAPI documents of scan, wallet, registry and the ledger API
    </li>
  </ul>
)

export const LandingPage = () => {
  const { version } = useLive()
  const { data, error } = useLoad(sandnet.overview, [version])
  return (
    <>
      <h1>{data === undefined ? "Sandnet" : `Sandnet · ${data.network}`}</h1>
      <p class="lead">
        Ledger time <Time iso={data?.ledger_time} />
        {data?.dev_net === true ? <span class="badge">dev net</span> : null}
      </p>
      <ErrorNote error={error} />
      <div class="grid">
        <Card title="Surfaces">
          <Surfaces />
        </Card>
        <Card title="Synchronizers">
          <ul class="plain">
            {data?.synchronizers.map((s) => (
              <li key={s.synchronizer_id}>
                <strong>{s.name}</strong> <Id value={s.synchronizer_id} kind="synchronizer id" /> migration {s.migration_id}
              </li>
            ))}
          </ul>
          {data === undefined ? null : (
            <p>
              DSO party <Id value={data.dso_party} kind="party" />
            </p>
          )}
        </Card>
        <Card title="Dev users" wide>
          {data === undefined ? null : <Users overview={data} />}
        </Card>
        <Card title="Nodes" wide>
          <ul class="nodes">{data?.nodes.map((n) => <NodeCard key={n.name} node={n} />)}</ul>
        </Card>
      </div>
      {data === undefined ? null : <p class="muted">Operator of the first validator: {partyName(data.nodes.find((n) => n.role === "validator")?.operator_party ?? "")}</p>}
    </>
  )
}
