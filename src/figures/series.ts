// What the sales screen's two charts draw, and the rule of days that have not yet come
// (docs/product.md §2.3): the month by day and the year by month, each with its number of sales and
// the earlier period's line (the month before by day number, last year by month). Past days and months
// without sales are zero; those that have not yet come are null (not drawn, `—` in the tables), and
// the CSV export leaves them out by the same rule. Pure functions of the buckets and `now`.
import type { Buckets } from '../../domain/buckets.ts'
import { daysInMonth, startOfDay } from '../../domain/calendar.ts'
import { monthBefore } from '../../domain/periods.ts'
import type { Period } from './clock.ts'

/**
 * Whether a UTC day (month 1-12, day 1-31) has come at `now`: it is today (UTC) or before. A month has
 * come when its 1st has.
 */
export const hasCome = (year: number, month: number, day: number, now: Date) =>
  Date.UTC(year, month - 1, day) <= startOfDay(now.getTime())

/** A chart's line: a value and a number of sales a point (null: not yet come), and the earlier period's values. */
export interface Series {
  values: (number | null)[]
  counts: (number | null)[]
  /** The earlier period's value at each point; null where it has none (or its buckets are missing). */
  earlier: (number | null)[]
  /**
   * The point still in progress, whose value is a part of what it will be: this year's current month
   * (UTC) in the year's months, drawn apart from the full ones (charts/lines.ts); null when none. A
   * day's figure is its own: the month's days have none.
   */
  inProgress: number | null
}

/**
 * The days of the period's month (one point a calendar day), against the month before by day number:
 * from the same buckets, or for January last year's December (`previousYear`, when fetched).
 */
export function daySeries(
  buckets: Buckets,
  previousYear: Buckets | undefined,
  period: Period,
  now: Date,
): Series {
  const { year, month } = period
  const before = monthBefore(buckets, previousYear, month)
  const come = Array.from({ length: daysInMonth(year, month) }, (_, index) =>
    hasCome(year, month, index + 1, now),
  )
  return {
    values: come.map((has, index) => (has ? (buckets.days[month - 1]?.[index] ?? 0) : null)),
    counts: come.map((has, index) => (has ? (buckets.dayCounts[month - 1]?.[index] ?? 0) : null)),
    earlier: come.map((_, index) => before.buckets?.days[before.month - 1]?.[index] ?? null),
    inProgress: null,
  }
}

/** The month (0-11) of `year` in progress at `now`: none once the year is over, or before it starts. */
function monthInProgress(year: number, now: Date) {
  const at = new Date(startOfDay(now.getTime()))
  return at.getUTCFullYear() === year ? at.getUTCMonth() : null
}

/** The 12 months of the period's year, against last year's months (`previousYear`, when fetched). */
export function monthSeries(
  buckets: Buckets,
  previousYear: Buckets | undefined,
  year: number,
  now: Date,
): Series {
  return {
    values: buckets.months.map((sum, index) => (hasCome(year, index + 1, 1, now) ? sum : null)),
    counts: buckets.monthCounts.map((count, index) => (hasCome(year, index + 1, 1, now) ? count : null)),
    earlier: previousYear?.months ?? buckets.months.map(() => null),
    inProgress: monthInProgress(year, now),
  }
}
