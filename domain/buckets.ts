// The shape of the sums the sales screens show (docs/product.md §3), shared by the bucketing worker,
// which fills them, and everything that reads them. Every figure is additive over records, so two
// bucketings of the same records in any order agree. A sale is a record with an amount above zero; a
// negative amount is a refund (it lowers the sums and is not counted as a sale); a zero amount is a
// valid record that adds nothing and counts nothing. Pure: the server can read buckets with it.
import { daysInMonth, daysInYear } from './calendar.ts'

export interface Buckets {
  year: number
  /** months[m] is the sum of month m + 1. */
  months: number[]
  /** days[m][d] is the sum of day d + 1 of month m + 1; every month has as many days as the calendar. */
  days: number[][]
  /** monthCounts[m] is the number of sales (amount > 0) of month m + 1. */
  monthCounts: number[]
  /** dayCounts[m][d] is the number of sales of day d + 1 of month m + 1 (the same shape as days). */
  dayCounts: number[][]
  /**
   * The sum of each UTC hour of the year, refunds included: index (UTC day of year, 0-based) × 24 +
   * UTC hour, so (days in the year) × 24 entries.
   */
  hourSums: number[]
  /** The number of sales of each UTC hour of the year, indexed as hourSums. */
  hourCounts: number[]
  /** The instant (epoch ms) of the latest sale of the year by its createdAt, whatever the record order; null without sales. */
  lastSaleAt: number | null
  total: number
  /** The number of sales of the year. */
  sales: number
  /** Records summed (sales, refunds and zero amounts). */
  records: number
  /** Records skipped: invalid createdAt, an amount that is not a finite number, or another year. */
  skipped: number
}

/** An array of zeros for each year length, copied (a quick slice) rather than filled for every bucketing. */
const zeroHours = [365, 366].map((days) => {
  const zeros: number[] = []
  for (let i = 0; i < days * 24; i++) zeros.push(0)
  return zeros
})

export function emptyBuckets(year: number): Buckets {
  const zeros = zeroHours[daysInYear(year) - 365] as number[]
  return {
    year,
    months: Array<number>(12).fill(0),
    days: Array.from({ length: 12 }, (_, m) => Array<number>(daysInMonth(year, m + 1)).fill(0)),
    monthCounts: Array<number>(12).fill(0),
    dayCounts: Array.from({ length: 12 }, (_, m) => Array<number>(daysInMonth(year, m + 1)).fill(0)),
    hourSums: zeros.slice(),
    hourCounts: zeros.slice(),
    lastSaleAt: null,
    total: 0,
    sales: 0,
    records: 0,
    skipped: 0,
  }
}

/** Buckets of the given year, or undefined when those given are another year's or missing. */
export const ofYear = (buckets: Buckets | undefined, year: number) =>
  buckets?.year === year ? buckets : undefined
