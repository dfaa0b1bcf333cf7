// The compact usage encoding (contract/usage-compact.ts): every record set round-trips exactly, to the
// millisecond and the won, in any order; the worker's bucketing of it equals the bucketing of the same
// records as the contract's JSON; and bytes that are not a whole answer are refused, never summed.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  compactUsageVersion,
  decodeUsage,
  encodeUsage,
  isCompactUsageType,
} from '../../../contract/usage-compact.ts'
import { compactUsageType, usageAccept } from '../../../contract/usage-compact-type.ts'
import { bucketCompact } from '../../../domain/bucketing.ts'
import type { Buckets } from '../../../domain/buckets.ts'
import { bucketUsage } from '../../../src/workers/bucket-exact.ts'

type Record = { at: number; amount: number }

const encode = (records: readonly Record[]) =>
  encodeUsage(
    records.map((r) => r.at),
    records.map((r) => r.amount),
  )

function decode(bytes: Uint8Array): Record[] {
  const found: Record[] = []
  const count = decodeUsage(bytes, (at, amount) => found.push({ at, amount }))
  expect(count).toBe(found.length)
  return found
}

/** The JSON our server writes for the same records (contract/usage-bytes.md). */
const json = (records: readonly Record[]) =>
  new TextEncoder().encode(
    `{"usages":[${records.map((r) => `{"createdAt":"${new Date(r.at).toISOString()}","amount":${r.amount}}`).join(',')}]}`,
  )

/** toEqual, made quick for thousands of 8,784-long hourly arrays: its difference only when they differ. */
function expectSame(actual: Buckets, expected: Buckets) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected)
}

const utc = Date.UTC
/** The last instant the format carries, and the largest amount. */
const latest = 2 ** 51 - 1
const largest = 2 ** 52 - 1
const prices = [3000, 3500, 4000, 4500, 5000, 6000, 7000, 8000]

/** Amounts as they come: mostly a few prices, then refunds, zero, odd amounts, and the extremes. */
const amount = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...prices) },
  { weight: 1, arbitrary: fc.constantFrom(...prices).map((price) => -price) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0, 1, -1, 10_000_000, 2 ** 31 - 1, -(2 ** 31), largest, -largest),
  },
  { weight: 2, arbitrary: fc.integer({ min: -50_000, max: 50_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -largest, max: largest }) },
)

/** A year of records in one of the orders an answer may have. */
const recordSets = fc
  .record({
    year: fc.constantFrom(2000, 2024, 2025, 2026, 2100),
    order: fc.constantFrom('sorted', 'unsorted', 'equal', 'bursts', 'sparse', 'edges'),
    amounts: fc.array(amount, { maxLength: 400 }),
    seeds: fc.array(fc.integer({ min: 0, max: 2 ** 30 }), { minLength: 400, maxLength: 400 }),
  })
  .map(({ year, order, amounts, seeds }) => {
    const start = utc(year, 0, 1) - 3_600_000
    const span = utc(year + 1, 0, 1) - start + 3_600_000
    const seed = (i: number) => seeds[i] as number
    // The year's first and last instants and those just outside, and the end of February.
    const edges = [utc(year, 0, 1), utc(year + 1, 0, 1), utc(year, 2, 1)].flatMap((edge) => [edge - 1, edge])
    let at = start
    const records = amounts.map((amount, i) => {
      if (order === 'sorted') at += seed(i) % 900_000
      else if (order === 'unsorted') at = start + ((seed(i) * 7919) % span)
      else if (order === 'equal') at = start + (seed(i) % 4) * 1000
      else if (order === 'bursts') at += seed(i) % 3 === 0 ? 0 : seed(i) % 2_000
      else if (order === 'sparse') at += (seed(i) % 40) * 86_400_000 + (seed(i) % 1000)
      else at = edges[seed(i) % edges.length] as number
      return { at, amount }
    })
    return { year, order, records }
  })

describe('the compact usage encoding', () => {
  it('round-trips every record exactly, in order: sorted, unsorted, equal instants, refunds, odd amounts, empty', () => {
    fc.assert(
      fc.property(recordSets, ({ records }) => {
        expect(decode(encode(records))).toEqual(records)
      }),
      { seed: 1414, numRuns: 400 },
    )
  })

  it('buckets like the contract’s JSON of the same records, on every path', () => {
    fc.assert(
      fc.property(recordSets, ({ year, records }) => {
        // Amounts whose sums stay exact in a double (both sum in the same order anyway).
        const usable = records.filter((r) => Math.abs(r.amount) <= 2 ** 40)
        const compact = encode(usable)
        const expected = bucketUsage(json(usable), year)
        expectSame(bucketCompact(compact, year), expected)
        expectSame(bucketUsage(compact, year, compactUsageType), expected)
        expectSame(bucketUsage(compact.slice().buffer, year, 'Application/Vnd.Laundry.Usage; v=1'), expected)
      }),
      { seed: 2026, numRuns: 300 },
    )
  })

  it('round-trips the edges: the first and last instants it carries, huge gaps both ways, many prices', () => {
    const cases: Record[][] = [
      [],
      [{ at: 0, amount: 0 }],
      [{ at: -1, amount: -1 }],
      [
        { at: latest, amount: largest },
        { at: -latest, amount: -largest },
        { at: latest, amount: 1 },
      ],
      // Every gap needs all the low bytes (6) or escapes.
      Array.from({ length: 50 }, (_, i) => ({ at: (i % 2 ? 1 : -1) * (latest - i), amount: i })),
      Array.from({ length: 300 }, (_, i) => ({ at: utc(2026, 0, 1) + i * 2 ** 40, amount: 1000 + i })),
      // More distinct prices than the dictionary holds (127), each several times.
      Array.from({ length: 2000 }, (_, i) => ({ at: utc(2026, 0, 1) + i * 60_000, amount: (i % 300) * 100 })),
      // A busy store's year, sorted: the case the format is designed for.
      Array.from({ length: 70_000 }, (_, i) => ({
        at: utc(2026, 0, 1) + i * 450_000 + ((i * 7919) % 400_000),
        amount: prices[(i * 31) % prices.length] as number,
      })).sort((a, b) => a.at - b.at),
    ]
    for (const records of cases) expect(decode(encode(records))).toEqual(records)
    const busy = encode(cases.at(-1) as Record[])
    // Three bytes a record before compression: a head byte and two low bytes of the gap.
    expect(busy.length / 70_000).toBeLessThan(3.05)
  })

  it('refuses records it cannot carry exactly', () => {
    const one = (at: number, amount: number) => () => encodeUsage([at], [amount])
    expect(one(0.5, 1)).toThrow(RangeError)
    expect(one(0, 1.5)).toThrow(RangeError)
    expect(one(latest + 1, 1)).toThrow(RangeError)
    expect(one(-latest - 1, 1)).toThrow(RangeError)
    expect(one(0, largest + 1)).toThrow(RangeError)
    expect(one(0, -largest - 1)).toThrow(RangeError)
    expect(one(Number.NaN, 1)).toThrow(RangeError)
    expect(one(0, Number.POSITIVE_INFINITY)).toThrow(RangeError)
    expect(() => encodeUsage([1, 2], [1])).toThrow(RangeError)
  })

  it('refuses bytes that are not a whole answer of version 1, never sums part of them', () => {
    const records = Array.from({ length: 500 }, (_, i) => ({
      at: utc(2026, 2, 1) + i * 999_999,
      amount: i % 50 === 0 ? 123_456 : 4000,
    }))
    const bytes = encode(records)
    const refused = (spoilt: Uint8Array) => expect(() => decodeUsage(spoilt, () => {})).toThrow(/malformed/)
    for (let length = 0; length < bytes.length; length += 7) refused(bytes.slice(0, length))
    refused(bytes.slice(0, -1))
    refused(Uint8Array.of(...bytes, 0))
    refused(Uint8Array.of(0x4c, 0x55, 2, 0))
    refused(new TextEncoder().encode('{"usages":[]}'))
    // A head byte beyond the codes of its dictionary: two prices make 3 amount codes and 85 high
    // parts, so 255 is none.
    let at = 3
    const skipVarint = () => {
      while ((bytes[at] as number) >= 128) at++
      at++
    }
    skipVarint() // the count
    skipVarint() // the first instant
    const dictionary = bytes[at + 1] as number
    expect(dictionary).toBe(2)
    at += 2
    for (let i = 0; i < dictionary; i++) skipVarint()
    expect(decodeUsage(bytes, () => {})).toBe(500)
    const spoilt = bytes.slice()
    spoilt[at + 250] = 255
    refused(spoilt)
    expect(() => bucketUsage(bytes.slice(0, 100), 2026, compactUsageType)).toThrow()
  })

  it('is named by its media type, version 1, which the app asks for after version 2 and before JSON', () => {
    expect(usageAccept).toBe(
      'application/vnd.laundry.usage; v=2, application/vnd.laundry.usage; v=1;q=0.95, application/json;q=0.9',
    )
    expect(isCompactUsageType(compactUsageType)).toBe(true)
    expect(isCompactUsageType('application/vnd.laundry.usage;v=1')).toBe(true)
    expect(isCompactUsageType('application/vnd.laundry.usage')).toBe(false)
    expect(isCompactUsageType('application/vnd.laundry.usage; v=2')).toBe(false)
    expect(isCompactUsageType('application/json; charset=utf-8')).toBe(false)
    expect(isCompactUsageType(null)).toBe(false)
    // The version, as one reading of the type: any case and spacing, quoted or not, the first v that names 1 or 2.
    for (const [type, version] of [
      ['APPLICATION/VND.LAUNDRY.USAGE ; V = "2" ', 2],
      ['application/vnd.laundry.usage; q=0.9; v=2', 2],
      ['application/vnd.laundry.usage; v=2;q=0.95', 2],
      ['application/vnd.laundry.usage; v=3; v=2', 2],
      ['application/vnd.laundry.usage; v=1; v=2', 1],
      ['application/vnd.laundry.usage; v=12', 0],
      ['application/vnd.laundry.usage; xv=2', 0],
      ['application/vnd.laundry.usagex; v=1', 0],
      ['text/plain; a=application/vnd.laundry.usage; v=1', 0],
    ] as const)
      expect([type, compactUsageVersion(type)]).toEqual([type, version])
    // The same bytes, read as the JSON their type says they are not: never taken for the compact form.
    const bytes = encode([{ at: utc(2026, 0, 5), amount: 4000 }])
    expect(bucketUsage(bytes, 2026, compactUsageType).total).toBe(4000)
    expect(() => bucketUsage(bytes, 2026, 'application/json')).toThrow()
  })
})
