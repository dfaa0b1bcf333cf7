// Is a store unusually quiet right now? A store that normally sells every few minutes at this hour and
// weekday, and has sold nothing for hours, is almost certainly broken (a dead kiosk or card terminal).
// The rule (docs/product.md §2.5), from the store's own history only (sale counts per UTC day and hour,
// as the buckets keep them), in one place for every screen that shows it and for the server's alerts:
//
// - The evidence is the sales the store's model (quiet-model.ts: its shape × its recent level) expected
//   since its last sale, however long ago: it resets only on a sale, not at the start of a day.
// - The store is quiet when the evidence reaches its own threshold (the model's: where its history
//   says such a silence comes at most about once a month), and no sale came.
// - No model (fewer than MIN_HISTORY_WEEKS weeks or MIN_SALES sales of history), no sale in the
//   history, or offline (we do not know what happened since the figures were fetched): nothing is said.
//
// Pure like the model: no DOM, no React, nothing kept, no clock (`now` is a parameter).
import type { Buckets } from './buckets.ts'
import { dayMs, hourMs, startOfDay, yearOf } from './calendar.ts'
import { expectedBetween, type HourlyHistory, type QuietModel, quietModel } from './quiet-model.ts'
import { type History, hourOfYear, storeHistory, yearHolding } from './usual.ts'

export {
  HISTORY_WEEKS,
  type HourlyHistory,
  MAX_EXPECTED_SALES,
  MIN_EXPECTED_SALES,
  MIN_HISTORY_WEEKS,
  type QuietModel,
  quietModel,
} from './quiet-model.ts'

/** Stores selling fewer sales a day than this get no quiet push: a note in the morning summary instead. */
export const QUIET_PUSH_SALES_PER_DAY = 20

export interface QuietStore {
  /** The instant (epoch ms) of the last sale: the quiet span began then. */
  since: number
  /** Whole hours since the quiet span began (at least 1 when shown). */
  quietHours: number
  /** Sales usually made in that span, rounded. */
  expectedSales: number
}

/** Whole hours of a quiet span from `since` to `nowMs` (at least 1). */
export const quietHoursSince = (since: number, nowMs: number) =>
  Math.max(1, Math.floor((nowMs - since) / hourMs))

/**
 * Whether the store is unusually quiet at `now`, and how; null when it is not, or when the rule cannot
 * tell (offline, too little history). `history` holds the store's buckets for this year and, early in
 * a year, the previous one; `lastSaleAt` is the instant of its last sale (null: none in them). `model`,
 * when given, is the store's model for now's UTC day (quietModel), kept by a caller that asks often.
 */
export function quietStore({
  history,
  lastSaleAt,
  now,
  online,
  model,
}: {
  history: History<HourlyHistory>
  lastSaleAt: number | null
  now: Date
  online: boolean
  model?: QuietModel | null
}): QuietStore | null {
  if (!online || lastSaleAt === null) return null
  const nowMs = now.getTime()
  if (lastSaleAt >= nowMs) return null
  const usual = model === undefined ? quietModel(history, startOfDay(nowMs)) : model
  if (!usual) return null
  const expected = expectedBetween(usual, lastSaleAt, nowMs)
  if (expected < usual.threshold) return null
  return {
    since: lastSaleAt,
    quietHours: quietHoursSince(lastSaleAt, nowMs),
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
  model?: QuietModel | null,
): QuietStore | null {
  if (buckets.year !== yearOf(now.getTime())) return null
  const history = storeHistory(buckets, previous)
  return quietStore({
    history,
    // The last sale of this year, else of last year when the history holds it.
    lastSaleAt: buckets.lastSaleAt ?? history[1]?.lastSaleAt ?? null,
    now,
    online: current,
    model,
  })
}

/**
 * The quiet spells of a UTC day, from its hourly counts (what the morning summary says of a store too
 * small for a quiet push): the runs of hours without a sale whose expected sales, by the model of that
 * day, reach its threshold. A run counts once; one begun the day before counts when it reaches the
 * threshold that day. Null without a model.
 */
export function quietSpellsOn(
  history: History<HourlyHistory>,
  day: number,
  model: QuietModel | null = quietModel(history, day),
): number | null {
  if (!model) return null
  let evidence = 0
  let spells = 0
  // From the day before, so a silence running into the day counts from its start.
  for (let hour = day - dayMs; hour < day + dayMs; hour += hourMs) {
    const count = yearHolding(history, hour)?.hourCounts[hourOfYear(hour)]
    if (count === undefined) return null
    if (count > 0) {
      evidence = 0
      continue
    }
    const before = evidence
    evidence += expectedBetween(model, hour, hour + hourMs)
    if (hour >= day && before < model.threshold && evidence >= model.threshold) spells++
  }
  return spells
}

/** `2시간째 결제 없음 · 평소 이 시간 약 14건`; a span of a day or more counts its days (`1일 3시간째`). */
export function quietStoreText({ quietHours, expectedSales }: QuietStore) {
  const span =
    quietHours < 24 ? `${quietHours}시간` : `${Math.floor(quietHours / 24)}일 ${quietHours % 24}시간`
  return `${span}째 결제 없음 · 평소 이 시간 약 ${expectedSales}건`
}
