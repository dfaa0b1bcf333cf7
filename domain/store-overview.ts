// One store's row of the stores overview (docs/product.md decisions 97–99, 110), one rule for both
// places that compute it: the server's overview of every store (server/usage/overview.ts) computes it
// from the store's buckets, and the app's overview shows it, from the server's answer or, from any
// other provider, from the store's years it fetched, through the very same two functions.
import type { StoreOverview } from '../contract/api.ts'
import type { Buckets } from './buckets.ts'
import { change, monthBefore, monthComparison } from './periods.ts'
import { type QuietModel, type QuietStore, quietHoursSince, quietStoreOf } from './quiet.ts'
import { todayComparison } from './usual.ts'

export type StoreFigures = Omit<StoreOverview, 'id' | 'devices'>

/**
 * A store's figures at `now` from its buckets of now's UTC year and the year before (undefined: not
 * fetched), as the overview shows them; the quiet rule as for figures that are the server's latest
 * (`model`: the store's quiet model of now's day, when the caller keeps it). Null when `current` is not
 * now's year.
 */
export function storeFigures(
  current: Buckets,
  previous: Buckets | undefined,
  now: Date,
  model?: QuietModel | null,
): StoreFigures | null {
  const month = now.getUTCMonth() + 1
  const today = todayComparison(current, previous, now)
  if (!today) return null
  const monthSoFar = monthComparison(current, month, monthBefore(current, previous, month).buckets, now)
  const quiet = quietStoreOf(current, previous, now, true, model)
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

/** What a comparison reads of totals: the sum, or the count where the sum is left out (hidden money, §15). */
const compared = (totals: { sum?: number | undefined; count: number } | null) =>
  totals && (totals.sum ?? totals.count)

/**
 * What a row shows from a store's figures: today against the usual, the month against the month
 * before, the last sale, and the quiet notice, only for figures that are `current` (figures that may
 * be out of date say nothing about a store being quiet now); its hours counted at `now`. Figures
 * without sums (a member the owner hides won amounts from, docs/product.md §15) compare counts.
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
      change: change(compared(figures.today) as number, compared(figures.usual)),
      lastSaleAt: figures.lastSaleAt === null ? null : Date.parse(figures.lastSaleAt),
    },
    monthSoFar: {
      sum: figures.month.sum,
      count: figures.month.count,
      change: change(compared(figures.month) as number, compared(figures.previousMonth)),
    },
    quiet,
  }
}

/** The figures without a won amount: counts, the last sale, the quiet rule (docs/product.md §15). */
export function withoutSums(figures: StoreFigures): StoreFigures {
  const counted = <T extends { count: number } | null>(totals: T) => (totals && { count: totals.count }) as T
  return {
    ...figures,
    today: counted(figures.today),
    usual: counted(figures.usual),
    month: counted(figures.month),
    previousMonth: counted(figures.previousMonth),
  }
}
