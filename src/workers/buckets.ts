// The shape of the sums the sales screen shows, shared by the bucketing worker and the screen.

export interface Buckets {
  year: number
  /** months[m] is the sum of month m + 1. */
  months: number[]
  /** days[m][d] is the sum of day d + 1 of month m + 1; every month has as many days as the calendar. */
  days: number[][]
  total: number
  /** Records summed. */
  records: number
  /** Records skipped: invalid createdAt or amount, or another year. */
  skipped: number
}

export const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

export function emptyBuckets(year: number): Buckets {
  return {
    year,
    months: Array<number>(12).fill(0),
    days: Array.from({ length: 12 }, (_, m) => Array<number>(daysInMonth(year, m + 1)).fill(0)),
    total: 0,
    records: 0,
    skipped: 0,
  }
}
