// The sales screen's comparisons, from the same buckets as its totals (docs/product.md §3): the year
// and the month against the same part of the period before, a month-end projection, today against a
// usual day, and the busiest hours. Pure functions: every one takes the buckets and an explicit `now`
// (and the device's offset where local time matters), so the same inputs always give the same figures.
//
// Days and hours are UTC, as the buckets are. "Up to the same time" compares by elapsed time since the
// period's start; the period before is cut at the same elapsed time (never past its own end), and the
// hour it is cut in counts for the elapsed fraction of that hour (its sum × the fraction). The current
// period counts the whole hour `now` falls in: that hour holds only sales up to now.
import type { Buckets } from '../workers/buckets.ts'

const hourMs = 3_600_000
const dayMs = 24 * hourMs

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

export interface TodayComparison {
  /** Today (the current UTC day) up to now. */
  sum: number
  count: number
  /** The average of the same weekday of the previous 4 weeks up to the same time of day; null when none of those days is in the buckets given, or they have no data. */
  usualSum: number | null
  usualCount: number | null
  change: number | null
  /** The instant (epoch ms) of the year's latest sale, which may be before today; null without sales. */
  lastSaleAt: number | null
}

export interface BusiestHours {
  /** 0 = Monday … 6 = Sunday (weekdayLabels). */
  weekday: number
  /** Local hours: the span is [fromHour, toHour), toHour = fromHour + 2. */
  fromHour: number
  toHour: number
  sum: number
}

/** Weekday labels in the grid's order: Monday first. */
export const weekdayLabels = ['월', '화', '수', '목', '금', '토', '일'] as const

const yearStart = (year: number) => Date.UTC(year, 0, 1)
/** The end of the UTC hour an instant falls in. */
const endOfHour = (ms: number) => Math.floor(ms / hourMs) * hourMs + hourMs
const startOfDay = (ms: number) => Math.floor(ms / dayMs) * dayMs
const yearOf = (ms: number) => new Date(ms).getUTCFullYear()

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

/** Buckets of the given year, or undefined when those given are another year's or missing. */
const ofYear = (buckets: Buckets | undefined, year: number) => (buckets?.year === year ? buckets : undefined)

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

/** The hourly sums of the 56 UTC days before `today`, by weekday: totals per hour and how many days were available. */
function weekdayHistory(available: (Buckets | undefined)[], today: number, weeks: number) {
  const hourTotals = Array.from({ length: 7 }, () => Array<number>(24).fill(0))
  const days = Array<number>(7).fill(0)
  for (let back = 1; back <= weeks * 7; back++) {
    const day = today - back * dayMs
    const buckets = available.find((b) => b?.year === yearOf(day))
    if (!buckets) continue
    const weekday = new Date(day).getUTCDay()
    const first = (day - yearStart(buckets.year)) / hourMs
    const totals = hourTotals[weekday] as number[]
    for (let hour = 0; hour < 24; hour++)
      totals[hour] = (totals[hour] as number) + (buckets.hourSums[first + hour] as number)
    days[weekday] = (days[weekday] as number) + 1
  }
  return { hourTotals, days }
}

/**
 * The month-end projection of the current month (null for any other): its sum so far, plus for the
 * rest of the current hour its remaining fraction × the usual sum of that hour, for each later hour of
 * today the usual sum of that hour, and for each later day of the month the usual sum of its whole day.
 * "Usual" is the average of the same UTC weekday over the 8 weeks (56 days) before today; days whose
 * year's buckets are missing are left out of the average, and when a weekday needed has none of its
 * 8 days available the projection is null.
 */
export function monthProjection(
  current: Buckets,
  previousYear: Buckets | undefined,
  month: number,
  now: Date,
): number | null {
  const at = now.getTime()
  const year = current.year
  const start = Date.UTC(year, month - 1, 1)
  const end = Date.UTC(year, month, 1)
  if (!(at >= start && at < end)) return null
  const today = startOfDay(at)
  const { hourTotals, days } = weekdayHistory([current, ofYear(previousYear, year - 1)], today, 8)
  const usualHour = (weekday: number, hour: number) =>
    ((hourTotals[weekday] as number[])[hour] as number) / (days[weekday] as number)
  let projection = periodTotals(current, start, endOfHour(at)).sum
  const todayWeekday = new Date(today).getUTCDay()
  if (days[todayWeekday] === 0) return null
  const hour = Math.floor((at - today) / hourMs)
  projection += (1 - (at - today - hour * hourMs) / hourMs) * usualHour(todayWeekday, hour)
  for (let later = hour + 1; later < 24; later++) projection += usualHour(todayWeekday, later)
  for (let day = today + dayMs; day < end; day += dayMs) {
    const weekday = new Date(day).getUTCDay()
    if (days[weekday] === 0) return null
    for (let h = 0; h < 24; h++) projection += usualHour(weekday, h)
  }
  return projection
}

/**
 * Today (the current UTC day) from 00:00 UTC up to now, against the usual: the average of the same
 * weekday of each of the previous 4 weeks, from its 00:00 UTC up to the same time of day (the hour it
 * is cut in prorated). Weeks whose year's buckets are not given (the previous year's, early in
 * January) are left out of the average; with none left, or none with data, the usual is null.
 * Null altogether when `current` is not the year of `now`.
 */
export function todayComparison(
  current: Buckets,
  previousYear: Buckets | undefined,
  now: Date,
): TodayComparison | null {
  const at = now.getTime()
  if (current.year !== yearOf(at)) return null
  const today = startOfDay(at)
  const { sum, count } = periodTotals(current, today, endOfHour(at))
  const available = [current, ofYear(previousYear, current.year - 1)]
  let usualSum = 0
  let usualCount = 0
  let weeks = 0
  for (let week = 1; week <= 4; week++) {
    const day = today - week * 7 * dayMs
    const buckets = available.find((b) => b?.year === yearOf(day))
    if (!buckets) continue
    const totals = periodTotals(buckets, day, day + (at - today))
    usualSum += totals.sum
    usualCount += totals.count
    weeks++
  }
  const usual = weeks > 0 && (usualSum !== 0 || usualCount !== 0)
  return {
    sum,
    count,
    usualSum: usual ? usualSum / weeks : null,
    usualCount: usual ? usualCount / weeks : null,
    change: usual ? change(sum, usualSum / weeks) : null,
    lastSaleAt: current.lastSaleAt,
  }
}

/** The device's offset from UTC in minutes east (+540 in Korea): the opposite of getTimezoneOffset. */
export const deviceOffsetMinutes = (date: Date) => -date.getTimezoneOffset()

/**
 * The sums of a month's (1-12) sales by weekday and hour of the device's local time: grid[weekday][hour],
 * weekday 0 = Monday … 6 = Sunday. The month is the buckets' UTC month (the same sales as its total);
 * each UTC hour moves by the offset (minutes east of UTC, deviceOffsetMinutes) rounded to the nearest
 * hour, a half hour upward (+5:30 → +6, −3:30 → −3), so an hour falls in one cell whole.
 */
export function hourGrid(buckets: Buckets, month: number, offsetMinutes: number): number[][] {
  const grid = Array.from({ length: 7 }, () => Array<number>(24).fill(0))
  const shift = Math.round(offsetMinutes / 60) * hourMs
  const start = yearStart(buckets.year)
  const first = (Date.UTC(buckets.year, month - 1, 1) - start) / hourMs
  const last = (Date.UTC(buckets.year, month, 1) - start) / hourMs
  for (let hour = first; hour < last; hour++) {
    const local = new Date(start + hour * hourMs + shift)
    const row = grid[(local.getUTCDay() + 6) % 7] as number[]
    const at = local.getUTCHours()
    row[at] = (row[at] as number) + (buckets.hourSums[hour] as number)
  }
  return grid
}

/**
 * The busiest two hours of a grid: the two adjacent hours of one weekday (within the day: 22–24 at the
 * latest) with the largest sum; on a tie the earliest (Monday first, then the earlier hour). Null when
 * no two hours sum above zero (a month without sales).
 */
export function busiestHours(grid: number[][]): BusiestHours | null {
  let best: BusiestHours | null = null
  grid.forEach((row, weekday) => {
    for (let hour = 0; hour + 1 < row.length; hour++) {
      const sum = (row[hour] as number) + (row[hour + 1] as number)
      if (sum > 0 && (best === null || sum > best.sum))
        best = { weekday, fromHour: hour, toHour: hour + 2, sum }
    }
  })
  return best
}
