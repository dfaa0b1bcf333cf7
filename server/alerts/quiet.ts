// The quiet rule: a store that usually sells at this hour has sold nothing for longer than its own
// history allows (docs/product.md §12). The rule is the app's own (domain/quiet.ts), run on the
// server's view of the store with its model of the day (made once a UTC day a store: it reads only the
// days before today); one alert per quiet episode (its last sale). No quiet alert while a device of
// the store is offline: its sales cannot arrive, and the device alert says it (decision 104); after
// they are back, the span they were away is no evidence (decision 183). A store
// selling fewer than QUIET_PUSH_SALES_PER_DAY a day gets no quiet push: the morning summary says it.
import type { StoreAlertSettings } from '../../contract/api.ts'
import { quietAlert } from '../../domain/alert-texts.ts'
import type { Buckets } from '../../domain/buckets.ts'
import { dayMs, hourMs, startOfDay } from '../../domain/calendar.ts'
import {
  HISTORY_WEEKS,
  QUIET_PUSH_SALES_PER_DAY,
  type QuietModel,
  quietModel,
  quietStoreOf,
} from '../../domain/quiet.ts'
import { expectedBetween, silenceMinutes } from '../../domain/quiet-model.ts'
import { storeHistory } from '../../domain/usual.ts'
import type { StoreViews } from '../stores/view.ts'
import { anyOffline } from './device-offline.ts'
import type { Outage } from './outages.ts'
import type { Candidate, StoreState } from './store-state.ts'

/** Each store's model, with the day and the history it was made from (one a store, replaced when either moves). */
const models = new Map<number, { key: string; model: QuietModel | null }>()

/**
 * The sale counts of the weeks the model reads (those before now's UTC day), as one number: a history
 * changed (records imported late, a store's rows gone) makes another model. The view's buckets keep
 * hourly counts, not always the year's totals, so the hours are summed.
 */
function historyKey(current: Buckets, previous: Buckets | undefined, now: number) {
  const today = startOfDay(now)
  let sales = 0
  let weighted = 0
  // The hours read, in at most two years' arrays (no Date an hour: this runs every minute a store).
  for (const buckets of [previous, current]) {
    if (!buckets) continue
    const yearStartMs = Date.UTC(buckets.year, 0, 1)
    const from = Math.max(0, Math.floor((today - (HISTORY_WEEKS * 7 + 1) * dayMs - yearStartMs) / hourMs))
    const to = Math.min(buckets.hourCounts.length, Math.floor((today - yearStartMs) / hourMs))
    for (let index = from; index < to; index++) {
      const count = buckets.hourCounts[index] as number
      sales += count
      weighted = (weighted * 31 + count) % 1_000_000_007
    }
  }
  return `${today}:${sales}:${weighted}`
}

/**
 * Models made in one evaluation at most (about a millisecond each): at 00:00 UTC, or after a start, a
 * fleet's models are made over the next minutes, not all in one. Meanwhile a store keeps the model it
 * had (yesterday's), or, right after a start, has none yet: no quiet alert for it until made.
 */
export const MODEL_BUILDS_PER_EVALUATION = 1000
let buildsAt = Number.NaN
let builds = 0

/**
 * The store's quiet model for now's UTC day, made once a day a store (again when its history changed);
 * `budgeted` (the rules): within MODEL_BUILDS_PER_EVALUATION, else always made (an answer's figures).
 */
export function modelOf(
  storeId: number,
  current: Buckets,
  previous: Buckets | undefined,
  now: number,
  budgeted = true,
) {
  const key = historyKey(current, previous, now)
  const kept = models.get(storeId)
  if (kept?.key === key) return kept.model
  if (now !== buildsAt) {
    buildsAt = now
    builds = 0
  }
  if (budgeted && builds >= MODEL_BUILDS_PER_EVALUATION) return kept?.model ?? null
  if (budgeted) builds++
  const model = quietModel(storeHistory(current, previous), startOfDay(now))
  models.set(storeId, { key, model })
  return model
}

/**
 * The sales the model expected within the store's outages between `since` and `now` (decision 183): a
 * span its devices were away is no evidence of a quiet store, whatever they delivered on their return
 * (the sales made then are stored at their own times, and a sale ends the evidence anyway).
 */
export function awayExpected(model: QuietModel, outages: Outage[], since: number, now: number) {
  let expected = 0
  for (const outage of outages) {
    const from = Math.max(outage.since, since)
    const to = Math.min(outage.endedAt ?? now, now)
    if (to > from) expected += expectedBetween(model, from, to)
  }
  return expected
}

export function quietCandidates(store: StoreState, now: Date): Candidate[] {
  if (anyOffline(store.devices, now.getTime())) return []
  const model = modelOf(store.id, store.current, store.previous, now.getTime())
  if (!model || model.salesPerDay < QUIET_PUSH_SALES_PER_DAY) return []
  const found = quietStoreOf(store.current, store.previous, now, true, model)
  if (!found) return []
  const away = awayExpected(model, store.outages, found.since, now.getTime())
  const evidence = expectedBetween(model, found.since, now.getTime()) - away
  if (away > 0 && evidence < model.threshold) return []
  const quiet = away > 0 ? { ...found, expectedSales: Math.round(evidence) } : found
  const episode = new Date(quiet.since).toISOString()
  return [
    {
      storeId: store.id,
      kind: 'quiet',
      episode,
      ...quietAlert(store.name, quiet),
      tag: `quiet:${store.id}:${episode}`,
    },
  ]
}

/**
 * What the alerts screen tells of a store's quiet alert: about how long a silence at its usual daytime
 * rate takes before it speaks, and whether it is pushed; null with too little history; undefined when
 * the instance holds no view of the store yet (the rules load it within a minute).
 */
export function quietAfterOf(
  views: StoreViews,
  storeId: number,
  now: number,
): StoreAlertSettings['quietAfter'] {
  const view = views.current(now)
  if (!view?.has(storeId)) return undefined
  const model = modelOf(storeId, ...view.bucketsOf(storeId, now), now, false)
  const minutes = model && silenceMinutes(model)
  if (!model || minutes === null) return null
  return { minutes, push: model.salesPerDay >= QUIET_PUSH_SALES_PER_DAY }
}
