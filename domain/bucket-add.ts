// The one way a record is added to the buckets and the hours summed into days, months and the year:
// every bucketing (domain/bucketing.ts, the worker's exact path) and the merge of a store-year's changes
// (domain/changes.ts) go through these. A module of its own, importing only the buckets' type, so that the merge, in
// the app's first chunk, does not bring the bucketing's parsers with it.
import type { Buckets } from './buckets.ts'

/**
 * Adds one valid record of the buckets' year, given its UTC hour index in the year (day of year × 24 +
 * hour) and its instant on the scale of `b.lastSaleAt`: milliseconds since the year began while
 * bucketing, epoch ms on finished buckets (a change merged, domain/changes.ts). With `sign` -1 the
 * record is taken away (its sale too; the last sale stays, the caller knows whether it may). Only the
 * hours are added to here; `finish` (or `sumHours` on finished buckets) sums the days, months and year
 * from them. Both paths add and finish through these two, so they fill every figure the same way.
 */
export function add(b: Buckets, hour: number, instant: number, amount: number, sign: 1 | -1 = 1) {
  b.hourSums[hour] = (b.hourSums[hour] as number) + sign * amount
  b.records += sign
  if (amount > 0) {
    b.hourCounts[hour] = (b.hourCounts[hour] as number) + sign
    if (sign > 0 && (b.lastSaleAt === null || instant > b.lastSaleAt)) b.lastSaleAt = instant
  }
}

/** Sums each day from its 24 hours, each month from its days and the year from its months (sums and sales alike). */
export function sumHours(b: Buckets): Buckets {
  const { hourSums, hourCounts } = b
  let hour = 0
  b.total = 0
  b.sales = 0
  for (let m = 0; m < 12; m++) {
    const days = b.days[m] as number[]
    const dayCounts = b.dayCounts[m] as number[]
    let monthSum = 0
    let monthCount = 0
    for (let d = 0; d < days.length; d++) {
      let sum = 0
      let count = 0
      for (const end = hour + 24; hour < end; hour++) {
        sum += hourSums[hour] as number
        count += hourCounts[hour] as number
      }
      days[d] = sum
      dayCounts[d] = count
      monthSum += sum
      monthCount += count
    }
    b.months[m] = monthSum
    b.monthCounts[m] = monthCount
    b.total += monthSum
    b.sales += monthCount
  }
  return b
}

/**
 * Sums the days, months and year from the hours (`sumHours`), and makes lastSaleAt, which holds
 * milliseconds since the year began while bucketing, an instant.
 */
export function finish(b: Buckets): Buckets {
  sumHours(b)
  if (b.lastSaleAt !== null) b.lastSaleAt += Date.UTC(b.year, 0, 1)
  return b
}
