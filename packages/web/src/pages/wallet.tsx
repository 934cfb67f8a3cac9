/**
 * `/wallet`: log in as a user (a dev token, or a token of an identity provider), then the user's
 * wallet: balance, sending, offers and instructions, holdings, history and the extras. Everything
 * is read again when the node reports a change (live), never by reloading the page.
 */
import { useState } from "preact/hooks"
import { sandnet, wallet, type Wallet } from "../api.ts"
import { useLive, useLoad } from "../live.ts"
import { ActionButton, Card, ErrorNote, Id } from "../ui.tsx"
import { BalanceCard, HistoryCard, HoldingsCard, ReceivingCard, TopUpCard } from "./wallet-account.tsx"
import { OffersCard, SendCard, TransfersCard } from "./wallet-transfers.tsx"

interface Session {
  readonly user: string
  readonly token: string
}

const SESSION_KEY = "sandnet.wallet.session"

const loadSession = (): Session | undefined => {
  try {
    const raw = sessionStorage.getItem(SESSION_KEY)
    return raw === null ? undefined : (JSON.parse(raw) as Session)
  } catch {
    return undefined
  }
}

/** The `sub` of a JWT (the user), or undefined when the text is not a token. */
const subjectOf = (token: string): string | undefined => {
  try {
    const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { sub?: unknown }
    return typeof payload.sub === "string" ? payload.sub : undefined
  } catch {
    return undefined
  }
}

const LoginForm = (props: { readonly onLogin: (session: Session) => void }) => {
  const [user, setUser] = useState("")
  const [token, setToken] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  const overview = useLoad(sandnet.overview, [])
  const devTokens = overview.data?.dev_tokens === true
  const submit = async (e: Event) => {
    e.preventDefault()
    setError(undefined)
    try {
      if (token.trim() !== "") {
        const sub = subjectOf(token.trim())
        if (sub === undefined) throw new Error("that is not a JWT (three base64url parts with a `sub` claim)")
        props.onLogin({ user: sub, token: token.trim() })
      } else if (user.trim() !== "" && devTokens) {
        props.onLogin({ user: user.trim(), token: await sandnet.devToken(user.trim()) })
      } else throw new Error(devTokens ? "enter a user name or paste a token" : "paste a token of your identity provider")
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }
  return (
    <Card title="Log in">
      <form class="form" onSubmit={(e) => void submit(e)}>
        {devTokens ? (
          <label>
            User name <span class="hint">(a dev token is made for it)</span>
            <input name="user" autocomplete="username" value={user} onInput={(e) => setUser(e.currentTarget.value)} list="known-users" />
            <datalist id="known-users">{overview.data?.users.map((u) => <option key={u.id} value={u.id} />)}</datalist>
          </label>
        ) : null}
        <label>
          Or a token <span class="hint">(from your identity provider)</span>
          <textarea name="token" rows={2} value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <ErrorNote error={error} />
        <button type="submit" class="btn primary">
          Log in
        </button>
      </form>
    </Card>
  )
}

const Onboard = (props: { readonly api: Wallet; readonly onDone: () => void }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  return (
    <Card title="No wallet yet">
      <p>This user has no wallet on this validator. Onboarding allocates a party and installs the wallet.</p>
      <ErrorNote error={error} />
      <ActionButton variant="primary" onError={setError} onRun={() => props.api.register().then(props.onDone)}>
        Onboard
      </ActionButton>
    </Card>
  )
}

const WalletView = (props: { readonly session: Session; readonly onLogout: () => void }) => {
  const api = wallet(props.session.token)
  const { version } = useLive()
  const [nonce, setNonce] = useState(0)
  const status = useLoad(api.userStatus, [props.session.token, nonce, version])
  const party = status.data?.party_id ?? ""
  return (
    <>
      <div class="page-head">
        <h1>Wallet</h1>
        <p class="who">
          <span>
            Logged in as <strong data-testid="wallet-user">{props.session.user}</strong>
          </span>
          {party === "" ? null : <Id value={party} kind="party" href={`/scan/party/${encodeURIComponent(party)}`} />}
          <button type="button" class="btn plain" onClick={props.onLogout}>
            Log out
          </button>
        </p>
      </div>
      <ErrorNote error={status.error} />
      {status.data === undefined ? null : !status.data.user_onboarded ? (
        <Onboard api={api} onDone={() => setNonce((n) => n + 1)} />
      ) : (
        <div class="grid">
          <BalanceCard api={api} version={version} />
          <SendCard api={api} party={party} />
          <ReceivingCard api={api} party={party} version={version} featured={status.data.has_featured_app_right} />
          <OffersCard api={api} party={party} version={version} />
          <TransfersCard api={api} party={party} version={version} />
          <HistoryCard api={api} party={party} version={version} />
          <HoldingsCard api={api} version={version} />
          <TopUpCard api={api} />
        </div>
      )}
    </>
  )
}

export const WalletPage = () => {
  const [session, setSession] = useState<Session | undefined>(loadSession)
  const login = (s: Session) => {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(s))
    setSession(s)
  }
  const logout = () => {
    sessionStorage.removeItem(SESSION_KEY)
    setSession(undefined)
  }
  return session === undefined ? (
    <>
      <h1>Wallet</h1>
      <LoginForm onLogin={login} />
    </>
  ) : (
    <WalletView key={session.token} session={session} onLogout={logout} />
  )
}
