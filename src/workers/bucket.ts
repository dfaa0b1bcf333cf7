// Turns a usage answer (the response bytes) into the sums the sales screen shows: per UTC day, per
// month, and the year total (SPEC.md 3). Records outside the year, and records whose createdAt is not
// a valid ISO 8601 timestamp or whose amount is not a number, are skipped and counted.
import { isValid, parseISO } from 'date-fns'
import { type Buckets, daysInMonth, emptyBuckets } from './buckets.ts'

/** A UTC calendar day as [year, month 1-12, day 1-31], or null when the text is not a valid timestamp. */
export type UtcDay = [year: number, month: number, day: number]

const digit = (text: string, at: number) => {
  const code = text.charCodeAt(at) - 48
  return code >= 0 && code <= 9 ? code : Number.NaN
}
const number2 = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1)

/**
 * The server's canonical form, `YYYY-MM-DDTHH:mm:ss.sssZ`, read straight from the characters
 * without building a Date. Anything else (or an impossible date) returns undefined for exactParse.
 */
export function fastParse(text: string): UtcDay | undefined {
  if (
    text.length !== 24 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46 || // .
    text.charCodeAt(23) !== 90 // Z
  ) {
    return undefined
  }
  const year = number2(text, 0) * 100 + number2(text, 2)
  const month = number2(text, 5)
  const day = number2(text, 8)
  const hour = number2(text, 11)
  const minute = number2(text, 14)
  const second = number2(text, 17)
  const millis = digit(text, 20) + digit(text, 21) + digit(text, 22)
  if (
    !(month >= 1 && month <= 12) ||
    !(day >= 1 && day <= daysInMonth(year, month)) ||
    !(hour <= 23 && minute <= 59 && second <= 59) ||
    Number.isNaN(millis)
  ) {
    return undefined
  }
  return [year, month, day]
}

/** Any ISO 8601 timestamp (with an offset, or without one meaning local time), parsed exactly. */
export function exactParse(text: string): UtcDay | null {
  const date = parseISO(text)
  if (!isValid(date)) return null
  return [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()]
}

export function utcDay(text: unknown): UtcDay | null {
  if (typeof text !== 'string') return null
  return fastParse(text) ?? exactParse(text)
}

/** Adds records to buckets of one year. */
export function addRecords(buckets: Buckets, usages: readonly unknown[]): Buckets {
  const { year, months, days } = buckets
  for (const usage of usages) {
    const record = usage as { createdAt?: unknown; amount?: unknown } | null
    const amount = record?.amount
    const day = utcDay(record?.createdAt)
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

/** The buckets of one year from the bytes of a usage answer `{ "usages": [...] }`. */
export function bucketUsage(bytes: ArrayBuffer | Uint8Array, year: number): Buckets {
  const text = new TextDecoder().decode(bytes)
  const answer = (text.trim() ? JSON.parse(text) : {}) as { usages?: unknown }
  const usages = Array.isArray(answer?.usages) ? answer.usages : []
  return addRecords(emptyBuckets(year), usages)
}
