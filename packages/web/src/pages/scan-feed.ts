/**
 * The scan's events (updates and their verdicts) as the explorer reads them: from the upstream
 * `/v0/events` list, paged from the beginning once, then only what came after the last one seen
 * whenever the node reports a change. A reset or a restore (a new engine generation) starts over.
 */
import { useEffect, useState } from "preact/hooks"
import { scan, type EventItem } from "../api.ts"

const PAGE = 1000

interface Feed {
  generation: number
  items: Array<EventItem>
}

const feed: Feed = { generation: -1, items: [] }
let loading: Promise<void> | undefined

const keyOf = (e: EventItem): { after_migration_id: number; after_record_time: string } | undefined => {
  const migration = e.update?.migration_id ?? e.verdict?.migration_id ?? 0
  const time = e.update?.record_time ?? e.verdict?.record_time
  return time === undefined ? undefined : { after_migration_id: migration, after_record_time: time }
}

const catchUp = async (generation: number): Promise<void> => {
  if (generation !== feed.generation) {
    feed.generation = generation
    feed.items = []
  }
  for (;;) {
    const last = feed.items.at(-1)
    const page = await scan.events(last === undefined ? undefined : keyOf(last), PAGE)
    feed.items.push(...page)
    if (page.length < PAGE) return
  }
}

export const updateIdOf = (e: EventItem): string => e.update?.update_id ?? e.verdict?.update_id ?? ""

/** Every event the scan has, oldest first, caught up on each change notice. */
export const useEvents = (generation: number | undefined, version: number): ReadonlyArray<EventItem> => {
  const [items, setItems] = useState<ReadonlyArray<EventItem>>(feed.items)
  useEffect(() => {
    if (generation === undefined) return
    let cancelled = false
    const run = async () => {
      while (loading !== undefined) await loading
      loading = catchUp(generation).finally(() => (loading = undefined))
      await loading
      if (!cancelled) setItems([...feed.items])
    }
    void run().catch(() => undefined)
    return () => void (cancelled = true)
  }, [generation, version])
  return items
}
