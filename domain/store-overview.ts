// One store's row of the stores overview (docs/product.md decisions 97–99, 110), one rule for both
// places that compute it: the server's overview of every store (server/usage/overview.ts) computes it
// from the store's buckets, and the app's overview shows it, from the server's answer or, from any
// other provider, from the store's years it fetched, through the very same two functions.
import type { StoreOverview } from '../contract/api.ts'
import type { Buckets } from './buckets.ts'
import { change, monthBefore, monthComparison } from './periods.ts'
import { type QuietStore, quietHoursSince, quietStoreOf } from './quiet.ts'
import { todayComparison } from './usual.ts'

export type StoreFigures = Omit<StoreOverview, 'id' | 'devices'>

/**
 * A store's figures at `now` from its buckets of now's UTC year and the year before (undefined: not
 * fetched), as the overview shows them; the quiet rule as for figures that are the server's latest.
 * Null when `current` is not now's year.
 */
export function storeFigures(
  current: Buckets,
  previous: Buckets | undefined,
  now: Date,
): StoreFigures | null {
  const month = now.getUTCMonth() + 1
  const today = todayComparison(current, previous, now)
  if (!today) return null
  const monthSoFar = monthComparison(current, month, monthBefore(current, previous, month).buckets, now)
  const quiet = quietStoreOf(current, previous, now, true)
  return {
    today: { sum: today.sum, count: today.count },
    usual:
      today.usualSum === null || today.usualCount === null
        ? null
        : { sum: today.usualSum, count: today.usualCount },
    month: { sum: monthSoFar.sum, count: monthSoFar.count },
    previousMonth:
      monthSoFar.previousSum === null || monthSoFar.previousCount === null
        ? null
        : { sum: monthSoFar.previousSum, count: monthSoFar.previousCount },
    lastSaleAt: today.lastSaleAt === null ? null : new Date(today.lastSaleAt).toISOString(),
    quiet: quiet && { since: new Date(quiet.since).toISOString(), expected: quiet.expectedSales },
  }
}

/**
 * What a row shows from a store's figures: today against the usual, the month against the month
 * before, the last sale, and the quiet notice, only for figures that are `current` (figures that may
 * be out of date say nothing about a store being quiet now); its hours counted at `now`.
 */
export function rowFigures(figures: StoreFigures, now: Date, current: boolean) {
  const since = figures.quiet ? Date.parse(figures.quiet.since) : Number.NaN
  const quiet: QuietStore | null =
    current && figures.quiet
      ? { since, quietHours: quietHoursSince(since, now.getTime()), expectedSales: figures.quiet.expected }
      : null
  return {
    today: {
      sum: figures.today.sum,
      count: figures.today.count,
      change: change(figures.today.sum, figures.usual?.sum ?? null),
      lastSaleAt: figures.lastSaleAt === null ? null : Date.parse(figures.lastSaleAt),
    },
    monthSoFar: {
      sum: figures.month.sum,
      change: change(figures.month.sum, figures.previousMonth?.sum ?? null),
    },
    quiet,
  }
}
