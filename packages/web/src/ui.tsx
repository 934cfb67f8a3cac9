/**
 * Shared pieces of the pages: the layout (navigation, ledger time, theme toggle), links that route
 * without reloading, amounts with their unit, shortened ids with copy buttons, cards and notices.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useState } from "preact/hooks"
import { registry, type Instrument } from "./api.ts"
import { formatAmount, formatTime, shortId } from "./format.ts"
import { useLive, useLoad } from "./live.ts"

// ------------------------------------------------------------------------------------------------
// Routing
// ------------------------------------------------------------------------------------------------

const routeListeners = new Set<() => void>()

export const navigate = (to: string): void => {
  history.pushState(null, "", to)
  for (const l of routeListeners) l()
  window.scrollTo(0, 0)
}

/** The current path and query, updated on navigation and on the browser's back and forward. */
export const useLocation = (): { readonly path: string; readonly query: URLSearchParams } => {
  const [, setTick] = useState(0)
  useEffect(() => {
    const update = () => setTick((t) => t + 1)
    routeListeners.add(update)
    window.addEventListener("popstate", update)
    return () => {
      routeListeners.delete(update)
      window.removeEventListener("popstate", update)
    }
  }, [])
  return { path: location.pathname, query: new URLSearchParams(location.search) }
}

export const Link = (props: { readonly href: string; readonly children: ComponentChildren; readonly class?: string; readonly "aria-current"?: "page" | undefined }) => (
  <a
    href={props.href}
    class={props.class}
    aria-current={props["aria-current"]}
    onClick={(e) => {
      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return
      e.preventDefault()
      navigate(props.href)
    }}
  >
    {props.children}
  </a>
)

// ------------------------------------------------------------------------------------------------
// Values
// ------------------------------------------------------------------------------------------------

let instrumentPromise: Promise<Instrument | undefined> | undefined

/** The coin's instrument (its name, Coin or Amulet by the node's names, and symbol), read from the registry (never written into the pages). */
export const useInstrument = (): Instrument | undefined => {
  instrumentPromise ??= registry.instruments().then((list) => list[0])
  return useLoad(() => instrumentPromise!, []).data
}

/** The coin's symbol. */
export const useUnit = (): string => useInstrument()?.symbol ?? ""

export const Amount = (props: { readonly value: string | undefined; readonly unit: string; readonly digits?: number }) => (
  <span class="amount" title={props.value === undefined ? undefined : `${props.value} ${props.unit}`}>
    {formatAmount(props.value, props.digits)}
    {props.unit === "" ? null : <span class="unit"> {props.unit}</span>}
  </span>
)

export const CopyButton = (props: { readonly text: string; readonly label: string }) => {
  const [done, setDone] = useState(false)
  return (
    <button
      type="button"
      class="copy"
      aria-label={done ? `${props.label}: copied` : props.label}
      title={props.label}
      onClick={() => {
        void navigator.clipboard?.writeText(props.text).catch(() => undefined)
        setDone(true)
        setTimeout(() => setDone(false), 1500)
      }}
    >
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
        {done ? (
          <path d="M3 8.5l3 3 7-7" fill="none" stroke="currentColor" stroke-width="2" />
        ) : (
          <path d="M5 5V2.5h8.5V11H11M2.5 5H11v8.5H2.5z" fill="none" stroke="currentColor" stroke-width="1.5" />
        )}
      </svg>
    </button>
  )
}

/** A long id, shortened, with its full text in a tooltip, a copy button and an optional link. */
export const Id = (props: { readonly value: string; readonly href?: string | undefined; readonly kind?: string }) => {
  const short = <code title={props.value}>{shortId(props.value)}</code>
  return (
    <span class="id">
      {props.href === undefined ? short : <Link href={props.href}>{short}</Link>}
      <CopyButton text={props.value} label={`Copy ${props.kind ?? "id"} ${shortId(props.value)}`} />
    </span>
  )
}

export const Time = (props: { readonly iso: string | undefined }) => <time dateTime={props.iso}>{formatTime(props.iso)}</time>

// ------------------------------------------------------------------------------------------------
// Blocks
// ------------------------------------------------------------------------------------------------

export const Card = (props: { readonly title: string; readonly id?: string; readonly children: ComponentChildren; readonly actions?: ComponentChildren; readonly wide?: boolean }) => {
  const headingId = props.id ?? `card-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`
  return (
    <section class={props.wide === true ? "card wide" : "card"} aria-labelledby={headingId}>
      <header class="card-head">
        <h2 id={headingId}>{props.title}</h2>
        {props.actions === undefined ? null : <div class="card-actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  )
}

export const ErrorNote = (props: { readonly error: string | undefined }) =>
  props.error === undefined ? null : (
    <p class="note error" role="alert">
      {props.error}
    </p>
  )

export const Empty = (props: { readonly children: ComponentChildren }) => <p class="empty">{props.children}</p>

/** A button that runs an action, shows that it runs and reports its failure. */
export const ActionButton = (props: {
  readonly onRun: () => Promise<unknown>
  readonly children: ComponentChildren
  readonly variant?: "primary" | "danger" | "plain"
  readonly label?: string
  readonly onError?: (message: string | undefined) => void
}) => {
  const [busy, setBusy] = useState(false)
  return (
    <button
      type="button"
      class={`btn ${props.variant ?? "plain"}`}
      aria-label={props.label}
      disabled={busy}
      aria-busy={busy}
      onClick={() => {
        setBusy(true)
        props.onError?.(undefined)
        props.onRun().then(
          () => setBusy(false),
          (e: unknown) => {
            setBusy(false)
            props.onError?.(e instanceof Error ? e.message : String(e))
          }
        )
      }}
    >
      {props.children}
    </button>
  )
}

// ------------------------------------------------------------------------------------------------
// Layout
// ------------------------------------------------------------------------------------------------

const THEMES = ["system", "light", "dark"] as const
type Theme = (typeof THEMES)[number]

const ThemeToggle = () => {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("sandnet.theme") as Theme | null) ?? "system")
  const next = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!
  return (
    <button
      type="button"
      class="btn plain theme"
      aria-label={`Colour theme: ${theme}. Switch to ${next}`}
      onClick={() => {
        setTheme(next)
        if (next === "system") {
          localStorage.removeItem("sandnet.theme")
          delete document.documentElement.dataset["theme"]
        } else {
          localStorage.setItem("sandnet.theme", next)
          document.documentElement.dataset["theme"] = next
        }
      }}
    >
      {theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"} <span class="theme-name">{theme}</span>
    </button>
  )
}

const NAV = [
  { href: "/", label: "Home" },
  { href: "/wallet", label: "Wallet" },
  { href: "/scan", label: "Scan" },
  { href: "/dev", label: "Dev console" }
] as const

export const Layout = (props: { readonly section: string; readonly children: ComponentChildren }) => {
  const { state } = useLive()
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/" class="brand">
          Sandnet
        </Link>
        <nav aria-label="Surfaces">
          {NAV.map((n) => (
            <Link key={n.href} href={n.href} aria-current={props.section === n.href ? "page" : undefined}>
              {n.label}
            </Link>
          ))}
          <a href="/docs">API docs</a>
        </nav>
        <span class="clock" aria-live="off" title="Ledger time">
          {state === undefined ? "" : formatTime(state.ledger_time)}
        </span>
        <ThemeToggle />
      </header>
      <main id="main">{props.children}</main>
    </>
  )
}
