/**
 * Which requesting parties a resolved event format shows an event to, and with which options
 * (created-event blob, interface views). Internal to the queries: not part of LedgerApi.
 */
import type { CreatedNode, ExercisedNode, PartyId } from "@sandnet/core"
import { splitTemplateId, type ResolvedEventFormat, type ResolvedFilters, type TemplateMatcher } from "./event-format.ts"

export interface Subject {
  readonly templateId: string
  readonly packageName: string
  /** Interfaces the template implements (package-id form). */
  readonly implemented: ReadonlyArray<string>
}

export interface Match {
  readonly parties: ReadonlyArray<PartyId>
  readonly includeCreatedEventBlob: boolean
  /** Matched interfaces whose view (or, for exercises, name) was asked for. */
  readonly views: ReadonlyArray<string>
}

const templateMatches = (matcher: TemplateMatcher, subject: Subject): boolean => {
  const id = splitTemplateId(subject.templateId)
  if (id.module !== matcher.module || id.entity !== matcher.entity) return false
  return matcher.packageId !== undefined ? id.pkg === matcher.packageId : subject.packageName === matcher.packageName
}

interface FilterResult {
  matched: boolean
  blob: boolean
  readonly views: Set<string>
}

const applyFilters = (filters: ResolvedFilters, subject: Subject, matchAll: boolean, into: FilterResult): void => {
  if (filters.filters.length === 0) {
    into.matched = true
    return
  }
  if (matchAll) into.matched = true
  for (const filter of filters.filters) {
    if (filter.wildcard) {
      into.matched = true
      into.blob ||= filter.includeCreatedEventBlob
    } else if (filter.template !== undefined) {
      if (templateMatches(filter.template, subject)) {
        into.matched = true
        into.blob ||= filter.includeCreatedEventBlob
      }
    } else if (filter.interfaceIds !== undefined) {
      const hit = subject.implemented.filter((i) => filter.interfaceIds!.has(i))
      if (hit.length > 0) {
        into.matched = true
        into.blob ||= filter.includeCreatedEventBlob
        if (filter.includeInterfaceView) for (const i of hit) into.views.add(i)
      }
    }
  }
}

/**
 * Which of the event's audience (stakeholders for ACS delta, witnesses for ledger effects) the
 * format shows it to. Any-party filters apply to the parties hosted on the participant.
 */
export const matchEvent = (
  format: ResolvedEventFormat,
  audience: ReadonlyArray<PartyId>,
  hosts: (party: PartyId) => boolean,
  subject: Subject
): Match | undefined => {
  const parties: Array<PartyId> = []
  let blob = false
  const views = new Set<string>()
  for (const party of audience) {
    const own = format.byParty.get(party)
    const any = format.anyParty !== undefined && hosts(party) ? format.anyParty : undefined
    if (own === undefined && any === undefined) continue
    const result: FilterResult = { matched: false, blob: false, views: new Set() }
    if (own !== undefined) applyFilters(own, subject, format.matchAll, result)
    if (any !== undefined) applyFilters(any, subject, format.matchAll, result)
    if (!result.matched) continue
    parties.push(party)
    blob ||= result.blob
    for (const v of result.views) views.add(v)
  }
  if (parties.length === 0) return undefined
  return { parties: [...new Set(parties)].sort(), includeCreatedEventBlob: blob, views: [...views].sort() }
}

export const createdSubject = (node: CreatedNode): Subject => ({
  templateId: node.templateId,
  packageName: node.packageName,
  implemented: Object.keys(node.interfaceViews).sort()
})

export const exercisedSubject = (node: ExercisedNode): Subject => ({
  templateId: node.templateId,
  packageName: node.packageName,
  implemented: node.implementedInterfaces
})
