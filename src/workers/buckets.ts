// The shape of the sums the sales screen shows, shared by the bucketing worker and the screen.
// Every figure is additive over records, so two bucketings of the same records in any order agree.
// A sale is a record with an amount above zero; a negative amount is a refund (it lowers the sums and
// is not counted as a sale); a zero amount is a valid record that adds nothing and counts nothing.

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

const monthLengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
/** firstDayOfMonth[m]: the 0-based day of year of the 1st of month m + 1 in a common year. */
const firstDayOfMonth = monthLengths.map((_, m) => monthLengths.slice(0, m).reduce((a, b) => a + b, 0))
export const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Days in a month (1-12) of the Gregorian calendar, by arithmetic: no Date is built. */
export const daysInMonth = (year: number, month: number) =>
  month === 2 && isLeapYear(year) ? 29 : (monthLengths[month - 1] ?? Number.NaN)

export const daysInYear = (year: number) => (isLeapYear(year) ? 366 : 365)

/** The 0-based day of year of a valid date (month 1-12, day 1-31), by a table: no Date is built. */
export const dayOfYear = (year: number, month: number, day: number) =>
  (firstDayOfMonth[month - 1] as number) + (month > 2 && isLeapYear(year) ? 1 : 0) + day - 1

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

/**
 * The hourly arrays as kept on the device: a string, or the plain array when its values are not all
 * integers within ±2^51 (only an answer with fractional or enormous amounts gives those).
 */
export type PackedSeries = string | number[]

/** Buckets as kept on the device (local storage JSON): as in memory, but the two hourly arrays packed. */
export type PackedBuckets = Omit<Buckets, 'hourSums' | 'hourCounts'> & {
  hourSums: PackedSeries
  hourCounts: PackedSeries
}

const digits64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const digitValues = new Map([...digits64].map((char, value) => [char, value]))
/** Twice it plus the sign is still a safe integer. */
const largestPacked = 2 ** 51
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))

/** A safe integer as base-64 digits, 5 bits a digit, lowest first, the 6th bit saying "more follows"; the sign in the lowest bit. */
function vlq(value: number): string {
  let rest = Math.abs(value) * 2 + (value < 0 ? 1 : 0)
  let text = ''
  do {
    const low = rest % 32
    rest = Math.floor(rest / 32)
    text += digits64[low + (rest > 0 ? 32 : 0)]
  } while (rest > 0)
  return text
}

/**
 * Packs an hourly array into a string: `scale;digits`, every value divided by the greatest common
 * divisor of all of them (sums in won are mostly multiples of 100 or 500), written as a variable-length
 * base-64 number, and a run of 3 or more zeros written as "minus zero" (`B`) and the run's length.
 * A busy store's year packs to about a third of its JSON.
 */
export function packSeries(values: readonly number[]): PackedSeries {
  if (!values.every((value) => Number.isInteger(value) && Math.abs(value) <= largestPacked))
    return [...values]
  const scale = values.reduce((a, b) => gcd(a, Math.abs(b)), 0) || 1
  let text = `${scale};`
  for (let i = 0; i < values.length; ) {
    let zeros = 0
    while (values[i + zeros] === 0) zeros++
    if (zeros >= 3) {
      text += `B${vlq(zeros)}`
      i += zeros
    } else {
      text += vlq((values[i] as number) / scale)
      i++
    }
  }
  return text
}

/** Reverses packSeries; throws when the text is not a packed series of `length` values. */
export function unpackSeries(packed: PackedSeries, length: number): number[] {
  if (Array.isArray(packed)) {
    if (packed.length !== length || !packed.every((value) => typeof value === 'number'))
      throw new Error('kept hourly figures of the wrong shape')
    return [...packed]
  }
  const separator = packed.indexOf(';')
  const scale = Number(packed.slice(0, separator))
  if (!(separator > 0 && Number.isSafeInteger(scale) && scale > 0))
    throw new Error('kept hourly figures unreadable')
  const values: number[] = []
  let at = separator + 1
  const next = () => {
    let result = 0
    let factor = 1
    for (;;) {
      const digit = digitValues.get(packed[at++] ?? '')
      if (digit === undefined) throw new Error('kept hourly figures unreadable')
      result += (digit % 32) * factor
      factor *= 32
      if (digit < 32) return result
    }
  }
  while (at < packed.length) {
    const raw = next()
    if (raw === 1) {
      const zeros = next() / 2
      for (let i = 0; i < zeros; i++) values.push(0)
    } else {
      const magnitude = Math.floor(raw / 2)
      values.push((raw % 2 === 1 ? -magnitude : magnitude) * scale)
    }
  }
  if (values.length !== length) throw new Error('kept hourly figures of the wrong length')
  return values
}

/** Buckets as kept on the device: the hourly arrays packed, everything else as it is. */
export function packBuckets(buckets: Buckets): PackedBuckets {
  return { ...buckets, hourSums: packSeries(buckets.hourSums), hourCounts: packSeries(buckets.hourCounts) }
}

/** Reverses packBuckets. */
export function unpackBuckets(packed: PackedBuckets): Buckets {
  const hours = daysInYear(packed.year) * 24
  return {
    ...packed,
    hourSums: unpackSeries(packed.hourSums, hours),
    hourCounts: unpackSeries(packed.hourCounts, hours),
  }
}
