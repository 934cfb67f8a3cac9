/** The developer console's network cards: health (per-node offsets, confirmations in flight), users and rights, identity providers. */
import { useState } from "preact/hooks"
import { sandnet, type ledger, type Right } from "../api.ts"
import { useLoad } from "../live.ts"
import { ActionButton, Card, Empty, ErrorNote, Id, Time } from "../ui.tsx"

type Admin = ReturnType<typeof ledger>

export const HealthCard = (props: { readonly version: number }) => {
  const health = useLoad(sandnet.health, [props.version])
  const h = health.data
  return (
    <Card title="Health">
      <ErrorNote error={health.error} />
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Offset</th>
              <th scope="col">Pending confirmations</th>
              <th scope="col">Committed / rejected</th>
            </tr>
          </thead>
          <tbody>
            {h?.nodes.map((n) => (
              <tr key={n.name}>
                <td>{n.name}</td>
                <td class="num">{n.ledger_end}</td>
                <td class="num">{n.pending_confirmations}</td>
                <td class="num">
                  {n.committed} / {n.rejected}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {h?.synchronizers.map((s) => (
        <p key={s.name}>
          {s.name}: {s.pending_confirmation_requests} requests awaiting a verdict, last sequenced <Time iso={s.last_sequenced} />
        </p>
      ))}
      <p>
        Scan: {h?.scan.updates ?? 0} updates, {h?.scan.verdicts ?? 0} verdicts
      </p>
    </Card>
  )
}

const rightText = (r: Right): string => {
  const [kind, body] = Object.entries(r.kind)[0] ?? ["?", {}]
  const party = body.value?.party
  return party === undefined ? kind : `${kind} ${party.split("::")[0]}`
}

const UserRights = (props: { readonly admin: Admin; readonly user: string; readonly version: number }) => {
  const rights = useLoad(() => props.admin.rights(props.user), [props.user, props.version])
  return <>{rights.data?.map(rightText).join(", ") ?? "…"}</>
}

export const UsersCard = (props: { readonly admin: Admin; readonly version: number }) => {
  const [name, setName] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  const [added, setAdded] = useState(0)
  const users = useLoad(props.admin.users, [props.version, added])
  return (
    <Card title="Users and rights" wide>
      <ErrorNote error={error ?? users.error} />
      <div class="inline">
        <label>
          New wallet user
          <input name="new-user" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <ActionButton variant="primary" onError={setError} onRun={() => props.admin.onboard(name.trim()).then(() => setAdded((a) => a + 1))}>
          Onboard
        </ActionButton>
      </div>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Primary party</th>
              <th scope="col">Rights</th>
            </tr>
          </thead>
          <tbody>
            {users.data?.map((u) => (
              <tr key={u.id}>
                <td>
                  {u.id} {u.isDeactivated ? <span class="badge bad">deactivated</span> : null}
                </td>
                <td>{u.primaryParty === "" ? "—" : <Id value={u.primaryParty} kind="party" />}</td>
                <td>
                  <UserRights admin={props.admin} user={u.id} version={props.version} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  )
}

export const IdpsCard = (props: { readonly admin: Admin }) => {
  const idps = useLoad(props.admin.idps, [])
  return (
    <Card title="Identity providers">
      <ErrorNote error={idps.error} />
      {(idps.data ?? []).length === 0 ? (
        <Empty>None: tokens are checked with the node's secret (POST /v2/idps adds one).</Empty>
      ) : (
        <ul class="plain">
          {idps.data?.map((p) => (
            <li key={p.identityProviderId}>
              <strong>{p.identityProviderId}</strong> {p.isDeactivated ? <span class="badge bad">deactivated</span> : null} issuer {p.issuer}
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}
