// Turns a usage answer (the response bytes, JSON or our compact encoding by its Content-Type) into the
// sums the sales screen shows: per UTC hour, day and month, the year total, the number of sales of
// each, and the last sale (docs/product.md §3).
// Records outside the year, and records whose createdAt is not a valid ISO 8601 timestamp or whose
// amount is not a finite number, are skipped and counted. A negative amount (a refund) lowers the sums
// and is not a sale; a zero amount counts nothing.
// The app's worker (src/workers/bucket-feed.ts) and the server (its overview and alerts) bucket with
// this very code. The exact path for JSON in another layout than our server's (date-fns' ISO reading)
// is the worker's (src/workers/bucket-exact.ts), which it loads only for such an answer.
import * as canonical from '../contract/usage-bytes.ts'
import { decodeUsage, type LeadingSums } from '../contract/usage-compact.ts'
import { finish } from './bucket-add.ts'
import { type Buckets, emptyBuckets } from './buckets.ts'
import { dayOfYear, daysInMonth, hourMs } from './calendar.ts'

const ascii = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0))
const answerStart = ascii(canonical.answerStart)
const recordStart = ascii(canonical.recordStart)
const recordMiddle = ascii(canonical.recordMiddle)
const recordEnd = canonical.recordEnd.charCodeAt(0)
const separator = canonical.recordSeparator.charCodeAt(0)
const answerEnd = ascii(canonical.answerEnd)
/** `{"createdAt":"` + 24 characters of timestamp + `","amount":` */
const recordHead = recordStart.length + canonical.timestampLength + recordMiddle.length

const matches = (bytes: Uint8Array, at: number, expected: Uint8Array) => {
  if (at + expected.length > bytes.length) return false
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false
  return true
}
/** The value of `count` decimal digits at `at`, or -1 when one of the bytes is not a digit. */
const decimal = (bytes: Uint8Array, at: number, count: number) => {
  let value = 0
  for (let i = at; i < at + count; i++) {
    // >>> 0 makes a byte below '0' huge, so one comparison rejects every byte that is not a digit.
    const digit = ((bytes[i] as number) - 48) >>> 0
    if (digit > 9) return -1
    value = value * 10 + digit
  }
  return value
}
const isSpace = (byte: number | undefined) => byte === 32 || byte === 10 || byte === 13 || byte === 9

/**
 * The fast path: this server's own answer in the canonical layout of contract/usage-bytes.md,
 * `{"usages":[{"createdAt":"YYYY-MM-DDTHH:mm:ss.sssZ","amount":N},...]}` without spaces, summed straight from the bytes with no JSON.parse, no strings and
 * no Dates. At the first byte that does not fit (another layout, a timestamp in another form or out of
 * range, a fractional amount) it gives up and returns null, and the answer is parsed exactly instead:
 * both paths then give the same buckets by construction.
 */
export function scanCanonical(bytes: Uint8Array, year: number): Buckets | null {
  if (!matches(bytes, 0, answerStart)) return null
  const buckets = emptyBuckets(year)
  // `add`, inlined on locals (the hot loop): only the hours, the records and the last sale.
  const { hourSums, hourCounts } = buckets
  let records = 0
  let skipped = 0
  let lastSale = -1
  /** The hour index in the year of the 1st of each month, 00:00 UTC. */
  const monthStartHour = Array.from({ length: 12 }, (_, m) => dayOfYear(year, m + 1, 1) * 24)
  let at = answerStart.length
  if (bytes[at] !== answerEnd[0]) {
    for (;;) {
      if (!matches(bytes, at, recordStart)) return null
      const t = at + recordStart.length
      if (
        bytes[t + 4] !== 45 || // -
        bytes[t + 7] !== 45 ||
        bytes[t + 10] !== 84 || // T
        bytes[t + 13] !== 58 || // :
        bytes[t + 16] !== 58 ||
        bytes[t + 19] !== 46 || // .
        bytes[t + 23] !== 90 // Z
      ) {
        return null
      }
      const y = decimal(bytes, t, 4)
      const month = decimal(bytes, t + 5, 2)
      const day = decimal(bytes, t + 8, 2)
      const hour = decimal(bytes, t + 11, 2)
      const minute = decimal(bytes, t + 14, 2)
      const second = decimal(bytes, t + 17, 2)
      const ms = decimal(bytes, t + 20, 3)
      if (
        !(month >= 1 && month <= 12) ||
        !(day >= 1 && day <= daysInMonth(y, month)) ||
        !(y >= 0 && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59) ||
        ms < 0 ||
        !matches(bytes, t + 24, recordMiddle)
      ) {
        return null
      }
      // A JSON integer: an optional minus, then 0 or digits without a leading zero; at most 15 digits.
      at += recordHead
      const negative = bytes[at] === 45
      if (negative) at++
      const first = at
      let amount = 0
      while (at < bytes.length && (bytes[at] as number) >= 48 && (bytes[at] as number) <= 57) {
        amount = amount * 10 + ((bytes[at] as number) - 48)
        at++
      }
      const digits = at - first
      if (
        digits === 0 ||
        digits > canonical.maxAmountDigits ||
        (digits > 1 && bytes[first] === 48) ||
        bytes[at] !== recordEnd
      )
        return null
      at++
      if (y === year) {
        const hourOfYear = (monthStartHour[month - 1] as number) + (day - 1) * 24 + hour
        records++
        if (negative) {
          hourSums[hourOfYear] = (hourSums[hourOfYear] as number) - amount
        } else if (amount > 0) {
          hourSums[hourOfYear] = (hourSums[hourOfYear] as number) + amount
          hourCounts[hourOfYear] = (hourCounts[hourOfYear] as number) + 1
          const msInYear = ((hourOfYear * 60 + minute) * 60 + second) * 1000 + ms
          if (msInYear > lastSale) lastSale = msInYear
        }
      } else {
        skipped++
      }
      if (bytes[at] === separator) {
        at++
        continue
      }
      break
    }
  }
  if (!matches(bytes, at, answerEnd)) return null
  for (at += answerEnd.length; at < bytes.length; at++) if (!isSpace(bytes[at])) return null
  buckets.records = records
  buckets.skipped = skipped
  buckets.lastSaleAt = lastSale < 0 ? null : lastSale
  return finish(buckets)
}

export const asBytes = (bytes: ArrayBuffer | Uint8Array) =>
  bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)

/**
 * The buckets of one year from a compact answer (contract/usage-compact.ts): every record is an
 * instant in ms and an integer amount, added as it is decoded, with no record objects. Records of
 * another year are skipped, as on the JSON paths. Throws on bytes that are not a compact answer.
 */
export function bucketCompact(bytes: ArrayBuffer | Uint8Array, year: number): Buckets {
  const buckets = emptyBuckets(year)
  const { hourSums, hourCounts } = buckets
  const yearStart = Date.UTC(year, 0, 1)
  const yearMs = Date.UTC(year + 1, 0, 1) - yearStart
  let skipped = 0
  let lastSale = -1
  const records = decodeUsage(asBytes(bytes), (createdAt, amount) => {
    const msInYear = createdAt - yearStart
    if (!(msInYear >= 0 && msInYear < yearMs)) {
      skipped++
      return
    }
    const hour = Math.floor(msInYear / hourMs)
    hourSums[hour] = (hourSums[hour] as number) + amount
    if (amount > 0) {
      hourCounts[hour] = (hourCounts[hour] as number) + 1
      if (msInYear > lastSale) lastSale = msInYear
    }
  })
  buckets.records = records - skipped
  buckets.skipped = skipped
  buckets.lastSaleAt = lastSale < 0 ? null : lastSale
  return finish(buckets)
}

/**
 * The buckets the leading sums of a version 2 answer give: days, months, the year, with their sales
 * (through `finish`, each day's sums put in its first hour, so its hours are not to be shown); no
 * records or last sale.
 */
export function leadingBuckets({ year, daySums, dayCounts }: LeadingSums): Buckets {
  const b = emptyBuckets(year)
  daySums.forEach((sum, day) => {
    b.hourSums[day * 24] = sum
    b.hourCounts[day * 24] = dayCounts[day] as number
  })
  return finish(b)
}
