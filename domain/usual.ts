// "The usual": what a store sells on the same weekday, at the same time, in the weeks before, from its
// own buckets (docs/product.md decisions 21 and 23). The sales screen's today and month-end estimate
// read it here, and so does the quiet rule (quiet.ts): one history, read one way. Pure: no DOM, no
// React, nothing kept, no clock (the instant is a parameter), so the server can run the very same code
// (the alerts it will compute). It imports only other pure files of figures/.
//
// A store's history is its buckets of each year it holds: this year's and, when fetched, last year's.
// A year not held is unknown, never zero: each rule says what it does without it.
import { type Buckets, ofYear } from './buckets.ts'
import { dayMs, endOfHour, hourMs, startOfDay, weekMs, yearOf, yearStart } from './calendar.ts'
import { change, periodTotals } from './periods.ts'

/** A store's history: its buckets of the years held (undefined entries: not fetched). */
export type History<T extends { year: number } = Buckets> = readonly (T | undefined)[]

/** The buckets of the history that hold the UTC year an instant falls in; undefined when that year is not held. */
export const yearHolding = <T extends { year: number }>(history: History<T>, at: number): T | undefined =>
  history.find((buckets) => buckets?.year === yearOf(at))

/** The index, in the hourly arrays of its year's buckets, of the UTC hour an instant falls in. */
export const hourOfYear = (at: number) => Math.floor((at - yearStart(yearOf(at))) / hourMs)

/** The same weekday and time of day, `weeks` weeks before an instant. */
export const weeksBefore = (at: number, weeks: number) => at - weeks * weekMs

/** A store's history as the screens hold it: this year's buckets and, when fetched, the previous year's. */
export const storeHistory = (current: Buckets, previousYear: Buckets | undefined): History => [
  current,
  ofYear(previousYear, current.year - 1),
]

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

/** The hourly sums of the 56 UTC days before `today`, by weekday: totals per hour and how many days were available. */
function weekdayHistory(available: History, today: number, weeks: number) {
  const hourTotals = Array.from({ length: 7 }, () => Array<number>(24).fill(0))
  const days = Array<number>(7).fill(0)
  for (let back = 1; back <= weeks * 7; back++) {
    const day = today - back * dayMs
    const buckets = yearHolding(available, day)
    if (!buckets) continue
    const weekday = new Date(day).getUTCDay()
    const first = hourOfYear(day)
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
  const { hourTotals, days } = weekdayHistory(storeHistory(current, previousYear), today, 8)
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
  const available = storeHistory(current, previousYear)
  let usualSum = 0
  let usualCount = 0
  let weeks = 0
  for (let week = 1; week <= 4; week++) {
    const day = weeksBefore(today, week)
    const buckets = yearHolding(available, day)
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
