// The periods' comparisons (docs/product.md decision 21), from the same buckets as the totals: the
// year and the month against the same part of the period before. Pure functions: every one takes the
// buckets and an explicit `now`, so the same inputs always give the same figures, on the device or on
// the server.
//
// Days and hours are UTC, as the buckets are. "Up to the same time" compares by elapsed time since the
// period's start; the period before is cut at the same elapsed time (never past its own end), and the
// hour it is cut in counts for the elapsed fraction of that hour (its sum × the fraction). The current
// period counts the whole hour `now` falls in: that hour holds only sales up to now.
import { type Buckets, ofYear } from './buckets.ts'
import { endOfHour, hourMs, yearOf, yearStart } from './calendar.ts'

/** A sum (refunds included) and a number of sales; prorated parts of an hour make both fractional. */
export interface Totals {
  sum: number
  count: number
}

export interface PeriodComparison {
  /** The period's sum (up to now for the current period). */
  sum: number
  /** Its number of sales. */
  count: number
  /** The average sale, sum / count; null without sales. */
  average: number | null
  /** The period before, up to the same elapsed time; null when its buckets are missing or it has no data (sum and count 0). */
  previousSum: number | null
  previousCount: number | null
  /** sum / previousSum − 1; null when there is nothing to compare with (see `change`). */
  change: number | null
}

/**
 * The change from `previous` to `current` as a ratio (0.123 for +12.3 %). Null when there is no
 * previous figure, or it is zero or negative (a net refund): no percentage means anything then.
 */
export function change(current: number, previous: number | null): number | null {
  if (previous === null || !(previous > 0)) return null
  return current / previous - 1
}

/**
 * The sum and number of sales of the hour buckets in [fromMs, toMs): an hour the range covers only in
 * part counts for the covered fraction of it. What lies outside the buckets' year adds nothing.
 */
export function periodTotals(buckets: Buckets, fromMs: number, toMs: number): Totals {
  const start = yearStart(buckets.year)
  const from = Math.max(fromMs, start)
  const to = Math.min(toMs, start + buckets.hourSums.length * hourMs)
  let sum = 0
  let count = 0
  if (!(to > from)) return { sum, count }
  const last = Math.ceil((to - start) / hourMs)
  for (let hour = Math.floor((from - start) / hourMs); hour < last; hour++) {
    const hourStart = start + hour * hourMs
    const covered = Math.min(to, hourStart + hourMs) - Math.max(from, hourStart)
    const fraction = covered === hourMs ? 1 : covered / hourMs
    sum += (buckets.hourSums[hour] as number) * fraction
    count += (buckets.hourCounts[hour] as number) * fraction
  }
  return { sum, count }
}

/** A period's figures against the one before; `previous` null when missing or without data. */
function compared(current: Totals, previous: Totals | null): PeriodComparison {
  const before = previous && (previous.sum !== 0 || previous.count !== 0) ? previous : null
  return {
    sum: current.sum,
    count: current.count,
    average: current.count > 0 ? current.sum / current.count : null,
    previousSum: before?.sum ?? null,
    previousCount: before?.count ?? null,
    change: change(current.sum, before?.sum ?? null),
  }
}

/**
 * A period [start, end) against the one before [previousStart, start), with `now`:
 * - a past period (now at or after its end): whole against whole;
 * - the current one: from its start up to now (the whole current hour) against the period before up
 *   to the same elapsed time, capped at that period's end;
 * - a future one (now before its start): its figures, nothing to compare with.
 */
function comparePeriods(
  current: Buckets,
  start: number,
  end: number,
  previous: Buckets | undefined,
  previousStart: number,
  now: number,
): PeriodComparison {
  if (now < start) return compared(periodTotals(current, start, end), null)
  const past = now >= end
  const currentTotals = periodTotals(current, start, past ? end : Math.min(end, endOfHour(now)))
  const previousEnd = past ? start : Math.min(previousStart + (now - start), start)
  return compared(currentTotals, previous ? periodTotals(previous, previousStart, previousEnd) : null)
}

/**
 * The year of `current` from 1 January 00:00 UTC up to now, against the previous year from its
 * 1 January up to the same elapsed time (so after 29 February of a leap year, one day later by date;
 * never past 31 December). A past year whole against the whole previous year; a future year has no
 * comparison. `previous` must be the previous year's buckets (any other year counts as missing).
 */
export function yearComparison(current: Buckets, previous: Buckets | undefined, now: Date): PeriodComparison {
  const year = current.year
  return comparePeriods(
    current,
    yearStart(year),
    yearStart(year + 1),
    ofYear(previous, year - 1),
    yearStart(year - 1),
    now.getTime(),
  )
}

/**
 * A month (1-12) of `current` against the month before up to the same elapsed time since the month's
 * start (capped at that month's end: on 31 March, all of February). A past month whole against the
 * whole month before; a future month has no comparison. `previousMonthBuckets` holds the month before:
 * the same buckets as `current`, or the previous year's for January (any other year counts as missing).
 */
export function monthComparison(
  current: Buckets,
  month: number,
  previousMonthBuckets: Buckets | undefined,
  now: Date,
): PeriodComparison {
  const year = current.year
  const previousStart = Date.UTC(year, month - 2, 1)
  return comparePeriods(
    current,
    Date.UTC(year, month - 1, 1),
    Date.UTC(year, month, 1),
    ofYear(previousMonthBuckets, yearOf(previousStart)),
    previousStart,
    now.getTime(),
  )
}

/**
 * The month before a month (1-12) of `buckets`, and the buckets that hold it: the same buckets, or for
 * January the previous year's (`previousYear`, when fetched) and its December.
 */
export const monthBefore = (buckets: Buckets, previousYear: Buckets | undefined, month: number) =>
  month === 1 ? { buckets: previousYear, month: 12 } : { buckets, month: month - 1 }
