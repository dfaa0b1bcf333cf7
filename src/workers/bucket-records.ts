// Turns a usage answer (the response bytes) into the sums the sales screen shows: per UTC day, per
// month, and the year total (docs/product.md §3). Records outside the year, and records whose createdAt
// is not a valid ISO 8601 timestamp or whose amount is not a number, are skipped and counted.
import { isValid, parseISO } from 'date-fns'
import * as canonical from '../../contract/usage-bytes.ts'
import { type Buckets, daysInMonth, emptyBuckets } from './buckets.ts'

/** A UTC calendar day as [year, month 1-12, day 1-31], or null when the text is not a valid timestamp. */
export type UtcDay = [year: number, month: number, day: number]

/** Any ISO 8601 timestamp (with an offset, or without one meaning local time), parsed exactly. */
export function exactParse(text: string): UtcDay | null {
  const date = parseISO(text)
  if (!isValid(date)) return null
  return [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()]
}

/** Adds records to buckets of one year, reading every createdAt exactly. */
function addRecords(buckets: Buckets, usages: readonly unknown[]): Buckets {
  const { year, months, days } = buckets
  for (const usage of usages) {
    const record = usage as { createdAt?: unknown; amount?: unknown } | null
    const amount = record?.amount
    const day = typeof record?.createdAt === 'string' ? exactParse(record.createdAt) : null
    if (!day || day[0] !== year || typeof amount !== 'number' || !Number.isFinite(amount)) {
      buckets.skipped++
      continue
    }
    const monthDays = days[day[1] - 1] as number[]
    monthDays[day[2] - 1] = (monthDays[day[2] - 1] as number) + amount
    months[day[1] - 1] = (months[day[1] - 1] as number) + amount
    buckets.total += amount
    buckets.records++
  }
  return buckets
}

/** The records of a usage answer, parsed as JSON (any server's, any layout). */
function parseUsages(bytes: Uint8Array): readonly unknown[] {
  const text = new TextDecoder().decode(bytes)
  const answer = (text.trim() ? JSON.parse(text) : {}) as { usages?: unknown }
  return Array.isArray(answer?.usages) ? answer.usages : []
}

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
const byteDigit = (bytes: Uint8Array, at: number) => {
  const value = (bytes[at] ?? 0) - 48
  return value >= 0 && value <= 9 ? value : Number.NaN
}
const byteNumber2 = (bytes: Uint8Array, at: number) => byteDigit(bytes, at) * 10 + byteDigit(bytes, at + 1)
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
  const { months, days } = buckets
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
      const y = byteNumber2(bytes, t) * 100 + byteNumber2(bytes, t + 2)
      const month = byteNumber2(bytes, t + 5)
      const day = byteNumber2(bytes, t + 8)
      if (
        !(month >= 1 && month <= 12) ||
        !(day >= 1 && day <= daysInMonth(y, month)) ||
        !(
          byteNumber2(bytes, t + 11) <= 23 &&
          byteNumber2(bytes, t + 14) <= 59 &&
          byteNumber2(bytes, t + 17) <= 59
        ) ||
        Number.isNaN(byteDigit(bytes, t + 20) + byteDigit(bytes, t + 21) + byteDigit(bytes, t + 22)) ||
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
        const signed = negative ? -amount : amount
        const monthDays = days[month - 1] as number[]
        monthDays[day - 1] = (monthDays[day - 1] as number) + signed
        months[month - 1] = (months[month - 1] as number) + signed
        buckets.total += signed
        buckets.records++
      } else {
        buckets.skipped++
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
  return buckets
}

const asBytes = (bytes: ArrayBuffer | Uint8Array) =>
  bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)

/** The exact path: JSON.parse, then every timestamp read exactly. Any server's answer; the reference the fast path must match. */
export function bucketExactly(bytes: ArrayBuffer | Uint8Array, year: number): Buckets {
  return addRecords(emptyBuckets(year), parseUsages(asBytes(bytes)))
}

/** The buckets of one year from the bytes of a usage answer `{ "usages": [...] }`. */
export function bucketUsage(bytes: ArrayBuffer | Uint8Array, year: number): Buckets {
  const view = asBytes(bytes)
  return scanCanonical(view, year) ?? bucketExactly(view, year)
}
