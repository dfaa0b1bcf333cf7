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

const monthLengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Days in a month (1-12) of the Gregorian calendar, by arithmetic: no Date is built. */
export const daysInMonth = (year: number, month: number) =>
  month === 2 && isLeapYear(year) ? 29 : (monthLengths[month - 1] ?? Number.NaN)

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
