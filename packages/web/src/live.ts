/**
 * Live state for the pages: the node's change notices (`/sandnet/events`, server-sent events) as a
 * counter that pages put in their effects' dependencies, so what they show is read again when the
 * network changed; and a hook that loads data and reloads it on each change.
 */
import { useEffect, useState, useCallback } from "preact/hooks"
import type { LiveState } from "./api.ts"

type Listener = (state: LiveState) => void

const listeners = new Set<Listener>()
let source: EventSource | undefined
let last: LiveState | undefined

const ensureSource = () => {
  if (source !== undefined) return
  source = new EventSource("/sandnet/events")
  const deliver = (event: MessageEvent<string>) => {
    last = JSON.parse(event.data) as LiveState
    for (const l of listeners) l(last)
  }
  source.addEventListener("change", deliver as EventListener)
  source.addEventListener("tick", deliver as EventListener)
}

/** The latest live state and a change counter (bumped on every `change` notice). */
export const useLive = (): { readonly state: LiveState | undefined; readonly version: number } => {
  const [state, setState] = useState<LiveState | undefined>(last)
  const [version, setVersion] = useState(0)
  useEffect(() => {
    ensureSource()
    let key = ""
    const listener: Listener = (s) => {
      setState(s)
      const next = JSON.stringify([s.generation, s.offsets, s.scan_updates, s.scan_verdicts])
      if (next !== key) {
        key = next
        setVersion((v) => v + 1)
      }
    }
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [])
  return { state, version }
}

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: string | undefined
  readonly reload: () => void
}

/** Loads with `load` now and again whenever one of `deps` changes; keeps the last good data. */
export const useLoad = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const [data, setData] = useState<A | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [nonce, setNonce] = useState(0)
  useEffect(() => {
    let cancelled = false
    load().then(
      (value) => {
        if (cancelled) return
        setData(value)
        setError(undefined)
      },
      (e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e))
    )
    return () => void (cancelled = true)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, nonce])
  const reload = useCallback(() => setNonce((n) => n + 1), [])
  return { data, error, reload }
}
