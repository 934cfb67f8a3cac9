/**
 * `/dev`, the developer console: ledger time, snapshots, reset (confirmed), users and their rights,
 * identity providers, the live request log and the network's health. It acts with an
 * administrator's token: a dev token of `participant_admin` when the node hands dev tokens out,
 * otherwise one the developer pastes.
 */
import { useEffect, useState } from "preact/hooks"
import { ledger, sandnet, type RequestLogEntry } from "../api.ts"
import { useLive, useLoad } from "../live.ts"
import { ActionButton, Card, Empty, ErrorNote, Time } from "../ui.tsx"
import { HealthCard, IdpsCard, UsersCard } from "./dev-network.tsx"

type Admin = ReturnType<typeof ledger>

const TimeCard = (props: { readonly admin: Admin }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const [custom, setCustom] = useState("1d")
  const { state } = useLive()
  return (
    <Card title="Ledger time">
      <p class="big">
        <Time iso={state?.ledger_time} />
      </p>
      <ErrorNote error={error} />
      <div class="inline">
        {["10m", "1h"].map((d) => (
          <ActionButton key={d} onError={setError} onRun={() => props.admin.advance(d)} label={`Advance time by ${d}`}>
            +{d}
          </ActionButton>
        ))}
        <label>
          Advance by
          <input name="advance" value={custom} onInput={(e) => setCustom(e.currentTarget.value)} size={6} />
        </label>
        <ActionButton variant="primary" onError={setError} onRun={() => props.admin.advance(custom)}>
          Advance
        </ActionButton>
      </div>
    </Card>
  )
}

const SnapshotsCard = (props: { readonly admin: Admin; readonly version: number }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const [taken, setTaken] = useState(0)
  const list = useLoad(props.admin.snapshots, [props.version, taken])
  return (
    <Card title="Snapshots">
      <ErrorNote error={error ?? list.error} />
      <ActionButton variant="primary" onError={setError} onRun={() => props.admin.snapshot().then(() => setTaken((t) => t + 1))}>
        Take snapshot
      </ActionButton>
      {(list.data ?? []).length === 0 ? (
        <Empty>No snapshots.</Empty>
      ) : (
        <ul class="plain" aria-label="Stored snapshots">
          {list.data?.map((s) => (
            <li key={s.snapshotId} class="inline">
              <code>{s.snapshotId}</code> <Time iso={s.createdAt} /> <span class="muted">{(s.bytes / 1024).toFixed(1)} KiB</span>
              <ActionButton onError={setError} onRun={() => props.admin.restore(s.snapshotId)} label={`Restore snapshot ${s.snapshotId}`}>
                Restore
              </ActionButton>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

const ResetCard = (props: { readonly admin: Admin }) => {
  const [confirming, setConfirming] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  return (
    <Card title="Reset">
      <p>A fresh network, genesis included: parties, holdings and uploads go; users and rights stay.</p>
      <ErrorNote error={error} />
      {confirming ? (
        <div class="confirm" role="group" aria-label="Confirm the reset">
          <p>
            <strong>Throw the whole network away?</strong>
          </p>
          <ActionButton variant="danger" onError={setError} onRun={() => props.admin.reset().then(() => setConfirming(false))}>
            Yes, reset the network
          </ActionButton>
          <button type="button" class="btn plain" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" class="btn danger" onClick={() => setConfirming(true)}>
          Reset…
        </button>
      )}
    </Card>
  )
}

const RequestLog = () => {
  const { state } = useLive()
  const [entries, setEntries] = useState<ReadonlyArray<RequestLogEntry>>([])
  useEffect(() => {
    const after = entries.at(-1)?.seq ?? 0
    void sandnet.requests(after).then((r) => r.requests.length > 0 && setEntries((old) => [...old, ...r.requests].slice(-200)), () => undefined)
  }, [state?.requests])
  const shown = [...entries].reverse().slice(0, 100)
  return (
    <Card title="Request log" wide>
      {shown.length === 0 ? (
        <Empty>No requests yet.</Empty>
      ) : (
        <div class="scroll log" tabIndex={0} role="region" aria-label="Requests, newest first">
          <table>
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Method</th>
                <th scope="col">Path</th>
                <th scope="col">Status</th>
                <th scope="col">ms</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.seq}>
                  <td>
                    <Time iso={e.at} />
                  </td>
                  <td>{e.method}</td>
                  <td class="path">{e.path}</td>
                  <td>
                    <span class={`badge ${e.status < 400 ? "ok" : "bad"}`}>{e.status}</span>
                  </td>
                  <td class="num">{e.millis}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  )
}

const useAdminToken = (): { readonly token: string | undefined; readonly error: string | undefined; readonly set: (t: string) => void } => {
  const [token, setToken] = useState<string | undefined>(() => sessionStorage.getItem("sandnet.dev.token") ?? undefined)
  const overview = useLoad(sandnet.overview, [])
  useEffect(() => {
    if (token === undefined && overview.data?.dev_tokens === true) void sandnet.devToken("participant_admin").then(setToken)
  }, [overview.data, token])
  const set = (t: string) => {
    sessionStorage.setItem("sandnet.dev.token", t)
    setToken(t)
  }
  return { token, error: overview.error, set }
}

const TokenForm = (props: { readonly onToken: (t: string) => void }) => {
  const [text, setText] = useState("")
  return (
    <Card title="Administrator token">
      <form class="form" onSubmit={(e) => (e.preventDefault(), props.onToken(text.trim()))}>
        <label>
          A token of a user with the ParticipantAdmin right
          <textarea name="admin-token" rows={2} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <button type="submit" class="btn primary">
          Use token
        </button>
      </form>
    </Card>
  )
}

export const DevPage = () => {
  const { version } = useLive()
  const admin = useAdminToken()
  if (admin.token === undefined) return (<><h1>Developer console</h1><ErrorNote error={admin.error} /><TokenForm onToken={admin.set} /></>)
  const api = ledger(admin.token)
  return (
    <>
      <h1>Developer console</h1>
      <div class="grid">
        <TimeCard admin={api} />
        <SnapshotsCard admin={api} version={version} />
        <ResetCard admin={api} />
        <HealthCard version={version} />
        <IdpsCard admin={api} />
        <UsersCard admin={api} version={version} />
        <RequestLog />
      </div>
      <p class="muted">
        {sessionStorage.getItem("sandnet.dev.token") === null ? (
          <>
            Acting as <code>participant_admin</code> with a dev token.
          </>
        ) : (
          "Acting with the administrator token you gave."
        )}
      </p>
    </>
  )
}
