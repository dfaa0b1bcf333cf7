// Is a store unusually quiet right now? A store that normally sells every few minutes at this hour and
// weekday, and has sold nothing for hours, is almost certainly broken (a dead kiosk or card terminal).
// The rule, from the store's own history only (sale counts per UTC day and hour, as the buckets keep
// them), in one place for every screen that shows it:
//
// - The quiet span runs from the last sale, or from the start of today (UTC) when the last sale was
//   before today, up to now: never a warning about a day before today.
// - The expected number of sales in that span is, hour by hour (the current hour prorated), the average
//   sale count of the same weekday and hour over the previous HISTORY_WEEKS weeks.
// - Only weeks the store already had (its first sale on or before that day) are averaged; with fewer
//   than MIN_HISTORY_WEEKS of them the rule says nothing: too little history to know what is usual.
// - The store is quiet when at least MIN_EXPECTED_SALES sales were expected in the span and none came.
// - Offline the rule says nothing: we do not know what happened since the figures were fetched.
//
// The history is the one "the usual" reads (usual.ts: the store's years held, each hour found in its
// year's buckets, the same weekday weeks before). Pure like it: no DOM, no React, nothing kept, no
// clock (`now` is a parameter), so the server can run the very same rule for its alerts.
import type { Buckets } from './buckets.ts'
import { hourMs, startOfDay, yearOf, yearStart } from './calendar.ts'
import { type History, hourOfYear, storeHistory, weeksBefore, yearHolding } from './usual.ts'

/** How many previous weeks of the same weekday make the usual. */
export const HISTORY_WEEKS = 8
/** With fewer weeks of history than this, nothing is said. */
export const MIN_HISTORY_WEEKS = 4
/**
 * At least this many sales must have been expected, and none have come, to call a store quiet. Set by
 * the calibration (bench/calibration.ts, docs/product.md decision 125): a year of the demo stores with
 * injected outages gives at most 1 false alert a store and month at 12 (at 3 the busiest store had
 * about 290 a month: a Poisson store misses 3 expected sales about once in 20 gaps). A store alerts
 * after about 12 of its usual sales' time: within the hour at 12 sales an hour, later when sparser.
 */
export const MIN_EXPECTED_SALES = 12

/** What the rule reads of one year's buckets. */
export interface HourlyHistory {
  year: number
  /** Sale counts per UTC day of the year and hour: index = day of year (0-based) × 24 + hour. */
  hourCounts: number[]
}

export interface QuietStore {
  /** The instant (epoch ms) the quiet span began: the last sale, or the start of today (UTC) when it was before today. */
  since: number
  /** Whole hours since the quiet span began (at least 1 when shown). */
  quietHours: number
  /** Sales usually made in that span, rounded. */
  expectedSales: number
}

/** The sale count of the UTC hour an instant falls in, or undefined when the history does not hold its year. */
function countAt(history: History<HourlyHistory>, at: number): number | undefined {
  const buckets = yearHolding(history, at)
  if (!buckets) return undefined
  return buckets.hourCounts[hourOfYear(at)] ?? 0
}

/** The instant of the first hour with a sale in the history, or null when there is none. */
function firstSaleHour(history: History<HourlyHistory>): number | null {
  let first: number | null = null
  for (const buckets of history) {
    if (!buckets) continue
    const { year, hourCounts } = buckets
    const index = hourCounts.findIndex((count) => count > 0)
    if (index < 0) continue
    const at = yearStart(year) + index * hourMs
    if (first === null || at < first) first = at
  }
  return first
}

/** Whole hours of a quiet span from `since` to `nowMs` (at least 1). */
export const quietHoursSince = (since: number, nowMs: number) =>
  Math.max(1, Math.floor((nowMs - since) / hourMs))

/**
 * Whether the store is unusually quiet at `now`, and how; null when it is not, or when the rule cannot
 * tell (offline, too little history). `history` holds the store's buckets for this year and, early in
 * a year, the previous one; `lastSaleAt` is the instant of its last sale (null: none in them).
 */
export function quietStore({
  history,
  lastSaleAt,
  now,
  online,
}: {
  history: History<HourlyHistory>
  lastSaleAt: number | null
  now: Date
  online: boolean
}): QuietStore | null {
  if (!online) return null
  const nowMs = now.getTime()
  const startOfToday = startOfDay(nowMs)
  const from = Math.max(lastSaleAt ?? startOfToday, startOfToday)
  if (from >= nowMs) return null
  const firstSale = firstSaleHour(history)
  if (firstSale === null) return null
  // The weeks the store already had, counted on today's weekday.
  const weeks = Array.from({ length: HISTORY_WEEKS }, (_, index) => index + 1).filter(
    (weeksBack) => weeksBefore(startOfToday, weeksBack) >= startOfDay(firstSale),
  )
  if (weeks.length < MIN_HISTORY_WEEKS) return null

  let expected = 0
  for (let hour = Math.floor(from / hourMs) * hourMs; hour < nowMs; hour += hourMs) {
    // The part of this hour inside the span [from, now).
    const share = (Math.min(hour + hourMs, nowMs) - Math.max(hour, from)) / hourMs
    let sum = 0
    for (const weeksBack of weeks) sum += countAt(history, weeksBefore(hour, weeksBack)) ?? 0
    expected += (sum / weeks.length) * share
  }
  if (expected < MIN_EXPECTED_SALES) return null
  return {
    since: from,
    quietHours: quietHoursSince(from, nowMs),
    expectedSales: Math.round(expected),
  }
}

/**
 * The rule for a store's buckets as the screens hold them: this year's and, when fetched, last year's.
 * `current`: they are the server's latest (no failed or unanswered fetch since); figures that may be
 * out of date say nothing about a store being quiet now. Null for a year other than now's.
 */
export function quietStoreOf(
  buckets: Buckets,
  previous: Buckets | undefined,
  now: Date,
  current: boolean,
): QuietStore | null {
  if (buckets.year !== yearOf(now.getTime())) return null
  const history = storeHistory(buckets, previous)
  return quietStore({
    history,
    // The last sale of this year, else of last year when the history holds it.
    lastSaleAt: buckets.lastSaleAt ?? history[1]?.lastSaleAt ?? null,
    now,
    online: current,
  })
}

/** `2시간째 결제 없음 · 평소 이 시간 약 14건` */
export const quietStoreText = ({ quietHours, expectedSales }: QuietStore) =>
  `${quietHours}시간째 결제 없음 · 평소 이 시간 약 ${expectedSales}건`
