// The buckets as kept on the device (local storage, through the query cache's persister in
// lib/query-client.ts): as in memory, but the two hourly arrays packed, about 31 kB for a busy store's
// year instead of 76 kB (docs/product.md §3).
import type { Buckets } from './buckets.ts'
import { daysInYear } from './calendar.ts'

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
