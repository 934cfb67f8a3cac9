/** The developer console's network cards: health (per-node offsets, confirmations in flight, failed automation steps), users and rights, identity providers. */
import { useState } from "preact/hooks"
import { sandnet, type AutomationStep, type ledger, type Right } from "../api.ts"
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
      {h === undefined ? null : <FailedAutomations steps={h.automations} />}
    </Card>
  )
}

/** The steps of the DSO's and the wallets' automations that failed; a step failing again waits until its retry time (engine time). */
const FailedAutomations = (props: { readonly steps: ReadonlyArray<AutomationStep> }) => (
  <>
    <h3 id="failed-automations">Failed automation steps</h3>
    {props.steps.length === 0 ? (
      <Empty>No automation step has failed.</Empty>
    ) : (
      // a list, not a table: the card is narrow and an error message long
      <ul class="automation-failures" aria-labelledby="failed-automations">
        {props.steps.map((s) => (
          <li key={`${s.automation} ${s.step}`} data-testid="failed-automation">
            <strong>{s.automation}</strong>, step <strong>{s.step}</strong>: {s.failures} {s.failures === 1 ? "failure" : "failures"}, {s.consecutive_failures} in a row;{" "}
            {s.consecutive_failures === 0 ? (
              "recovered"
            ) : (
              <>
                retry at <Time iso={s.retry_at} />
              </>
            )}
            {s.last_error === undefined ? null : <code class="error-text">{s.last_error}</code>}
          </li>
        ))}
      </ul>
    )}
  </>
)

const rightText = (r: Right): string => {
  const [kind, body] = Object.entries(r.kind)[0] ?? ["?", {}]
  const party = body.value?.party
  return party === undefined ? kind : `${kind} ${party.split("::")[0]}`
}

const UserRights = (props: { readonly admin: Admin; readonly user: string; readonly version: number }) => {
  const rights = useLoad(() => props.admin.rights(props.user), [props.user, props.version])
  return <>{rights.data?.map(rightText).join(", ") ?? "…"}</>
}

const PARTY_RIGHTS = ["CanActAs", "CanReadAs", "CanExecuteAs"] as const
const RIGHT_KINDS = [...PARTY_RIGHTS, "CanReadAsAnyParty", "CanExecuteAsAnyParty", "ParticipantAdmin", "IdentityProviderAdmin"] as const
type RightKind = (typeof RIGHT_KINDS)[number]

const rightOf = (kind: RightKind, party: string): Right => ({
  kind: { [kind]: (PARTY_RIGHTS as ReadonlyArray<string>).includes(kind) ? { value: { party } } : { value: {} } }
})

/** Grants a user a right, or revokes one: the ledger's user management, as the administrator. */
const RightsForm = (props: { readonly admin: Admin; readonly users: ReadonlyArray<string>; readonly onDone: () => void; readonly onError: (e: string | undefined) => void }) => {
  const [user, setUser] = useState("")
  const [kind, setKind] = useState<RightKind>("CanReadAs")
  const [party, setParty] = useState("")
  const needsParty = (PARTY_RIGHTS as ReadonlyArray<string>).includes(kind)
  const change = (c: "grant" | "revoke") => async () => {
    const target = user === "" ? props.users[0] : user
    if (target === undefined) throw new Error("no user to change")
    if (needsParty && party.trim() === "") throw new Error(`${kind} needs a party`)
    await props.admin.changeRight(target, c, rightOf(kind, party.trim()))
    props.onDone()
  }
  return (
    <fieldset class="inline">
      <legend>Grant or revoke a right</legend>
      <label>
        User
        <select name="right-user" aria-label="User" value={user} onChange={(e) => setUser(e.currentTarget.value)}>
          {props.users.map((u) => (
            <option key={u} value={u}>
              {u}
            </option>
          ))}
        </select>
      </label>
      <label>
        Right
        <select name="right-kind" aria-label="Right" value={kind} onChange={(e) => setKind(e.currentTarget.value as RightKind)}>
          {RIGHT_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      {needsParty ? (
        <label>
          Party
          <input name="right-party" value={party} onInput={(e) => setParty(e.currentTarget.value)} spellcheck={false} />
        </label>
      ) : null}
      <ActionButton variant="primary" onError={props.onError} onRun={change("grant")}>
        Grant
      </ActionButton>
      <ActionButton onError={props.onError} onRun={change("revoke")}>
        Revoke
      </ActionButton>
    </fieldset>
  )
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
      <RightsForm admin={props.admin} users={(users.data ?? []).map((u) => u.id)} onDone={() => setAdded((a) => a + 1)} onError={setError} />
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
                <td data-testid={`rights-${u.id}`}>
                  <UserRights admin={props.admin} user={u.id} version={props.version + added} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  )
}

const IdpForm = (props: { readonly admin: Admin; readonly onDone: () => void; readonly onError: (e: string | undefined) => void }) => {
  const [fields, setFields] = useState({ identityProviderId: "", issuer: "", jwksUrl: "", audience: "" })
  const input = (key: keyof typeof fields, label: string) => (
    <label>
      {label}
      <input name={`idp-${key}`} value={fields[key]} onInput={(e) => setFields({ ...fields, [key]: e.currentTarget.value })} spellcheck={false} />
    </label>
  )
  return (
    <fieldset class="form">
      <legend>Add an identity provider</legend>
      {input("identityProviderId", "Id")}
      {input("issuer", "Issuer")}
      {input("jwksUrl", "JWKS URL")}
      {input("audience", "Audience (optional)")}
      <ActionButton variant="primary" onError={props.onError} onRun={() => props.admin.addIdp(fields).then(props.onDone)}>
        Add identity provider
      </ActionButton>
    </fieldset>
  )
}

export const IdpsCard = (props: { readonly admin: Admin }) => {
  const [added, setAdded] = useState(0)
  const [error, setError] = useState<string | undefined>(undefined)
  const idps = useLoad(props.admin.idps, [added])
  return (
    <Card title="Identity providers">
      <ErrorNote error={error ?? idps.error} />
      {(idps.data ?? []).length === 0 ? (
        <Empty>None: tokens are checked with the node's secret.</Empty>
      ) : (
        <ul class="plain" aria-label="Identity providers">
          {idps.data?.map((p) => (
            <li key={p.identityProviderId} data-testid="idp">
              <strong>{p.identityProviderId}</strong> {p.isDeactivated ? <span class="badge bad">deactivated</span> : null} issuer <code>{p.issuer}</code>
              {p.audience === "" ? null : <span class="muted"> · audience {p.audience}</span>}
            </li>
          ))}
        </ul>
      )}
      <IdpForm admin={props.admin} onDone={() => setAdded((a) => a + 1)} onError={setError} />
    </Card>
  )
}
