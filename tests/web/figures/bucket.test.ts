import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { scanCanonical } from '../../../domain/bucketing.ts'
import { type Buckets, emptyBuckets } from '../../../domain/buckets.ts'
import { daysInMonth } from '../../../domain/calendar.ts'
import { packBuckets, packSeries, unpackBuckets, unpackSeries } from '../../../domain/kept-buckets.ts'
import { bucketExactly, bucketUsage } from '../../../src/workers/bucket-exact.ts'

/** A deterministic generator, so a failure can be reproduced. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state / 2 ** 31
  }
}

const bytes = (usages: unknown[]) => new TextEncoder().encode(JSON.stringify({ usages }))

/** Deep equality by Object.is, in plain loops: quick enough for thousands of 8,784-long hourly arrays. */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) {
      const x = a[i]
      const y = b[i]
      if (x !== y || (x === 0 && !Object.is(x, y))) {
        if (typeof x === 'number' || !same(x, y)) return false
      }
    }
    return true
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

/** toEqual, made quick: a plain deep comparison first, and toEqual (for its difference) only when that fails. */
function expectSame(actual: Buckets, expected: Buckets, message?: string) {
  if (!same(actual, expected)) expect(actual, message).toEqual(expected)
}

describe('bucketing usage records (UTC days and months, docs/product.md §3)', () => {
  it('puts a record at 23:59:59.999Z and one at 00:00:00Z on different days', () => {
    const buckets = bucketUsage(
      bytes([
        { createdAt: '2026-03-01T23:59:59.999Z', amount: 4000 },
        { createdAt: '2026-03-02T00:00:00.000Z', amount: 5000 },
      ]),
      2026,
    )
    expect(buckets.days[2]?.slice(0, 3)).toEqual([4000, 5000, 0])
    expect(buckets.months[2]).toBe(9000)
  })

  it('ends the year at 2026-12-31T23:59:59.999Z and skips the first instant of the next', () => {
    const buckets = bucketUsage(
      bytes([
        { createdAt: '2026-12-31T23:59:59.999Z', amount: 8000 },
        { createdAt: '2027-01-01T00:00:00.000Z', amount: 2000 },
        { createdAt: '2025-12-31T23:59:59.999Z', amount: 1000 },
      ]),
      2026,
    )
    expect(buckets.days[11]?.[30]).toBe(8000)
    expect(buckets.total).toBe(8000)
    expect(buckets.skipped).toBe(2)
  })

  it('counts 29 February in a leap year', () => {
    const buckets = bucketUsage(bytes([{ createdAt: '2024-02-29T12:00:00.000Z', amount: 3000 }]), 2024)
    expect(buckets.days[1]).toHaveLength(29)
    expect(buckets.days[1]?.[28]).toBe(3000)
    expect(buckets.months[1]).toBe(3000)
  })

  it('gives every month as many days as the calendar: 28, 30 and 31', () => {
    const buckets = emptyBuckets(2026)
    expect(buckets.days.map((days) => days.length)).toEqual([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    expect(emptyBuckets(2024).days[1]).toHaveLength(29)
  })

  it('fills an empty year with zeros', () => {
    const buckets = bucketUsage(bytes([]), 2026)
    expect(buckets.total).toBe(0)
    expect(buckets.months).toEqual(Array(12).fill(0))
    expect(buckets.days.flat().every((amount) => amount === 0)).toBe(true)
    expect(buckets.records).toBe(0)
  })

  it('skips and counts records whose createdAt is not a valid timestamp, and never throws', () => {
    const buckets = bucketUsage(
      bytes([
        { createdAt: 'yesterday', amount: 1000 },
        { createdAt: '2026-02-30T10:00:00.000Z', amount: 1000 },
        { createdAt: '2026-13-01T10:00:00.000Z', amount: 1000 },
        { createdAt: '2026-03-01T25:00:00.000Z', amount: 1000 },
        { createdAt: null, amount: 1000 },
        { createdAt: 1772323200000, amount: 1000 },
        { amount: 1000 },
        null,
        { createdAt: '2026-03-01T10:00:00.000Z', amount: 'a lot' },
        { createdAt: '2026-03-01T10:00:00.000Z', amount: 4000 },
      ]),
      2026,
    )
    expect(buckets.skipped).toBe(9)
    expect(buckets.records).toBe(1)
    expect(buckets.total).toBe(4000)
  })

  it('reads timestamps with an offset or without milliseconds by their UTC day', () => {
    const buckets = bucketUsage(
      bytes([
        { createdAt: '2026-03-01T08:00:00+09:00', amount: 1000 },
        { createdAt: '2026-03-01T09:00:00+09:00', amount: 2000 },
        { createdAt: '2026-03-05T10:00:00Z', amount: 3000 },
      ]),
      2026,
    )
    expect(buckets.days[1]?.[27]).toBe(1000)
    expect(buckets.days[2]?.[0]).toBe(2000)
    expect(buckets.days[2]?.[4]).toBe(3000)
  })

  it('treats an empty answer as a year without records', () => {
    expect(bucketUsage(new Uint8Array(), 2026).total).toBe(0)
    expect(bucketUsage(new TextEncoder().encode('{}'), 2026).total).toBe(0)
  })

  it('sums the year from the months, and each month from its days', () => {
    const usages = Array.from({ length: 500 }, (_, i) => ({
      createdAt: new Date(Date.UTC(2026, 0, 1) + i * 17 * 3600_000).toISOString(),
      amount: 3000 + (i % 11) * 500,
    }))
    const buckets = bucketUsage(bytes(usages), 2026)
    expect(buckets.total).toBe(usages.reduce((sum, usage) => sum + usage.amount, 0))
    expect(buckets.months.reduce((a, b) => a + b, 0)).toBe(buckets.total)
    buckets.months.forEach((month, m) => {
      expect(buckets.days[m]?.reduce((a, b) => a + b, 0)).toBe(month)
    })
  })
})

describe('the fast path for the canonical form', () => {
  const oneRecord = (createdAt: string) =>
    new TextEncoder().encode(`{"usages":[{"createdAt":"${createdAt}","amount":1000}]}`)

  it('agrees with exact parsing on 5,000 random timestamps, valid and not', () => {
    const next = random(42)
    const pick = (low: number, high: number) => low + Math.floor(next() * (high - low + 1))
    const pad = (n: number, width = 2) => String(n).padStart(width, '0')
    let fast = 0
    for (let i = 0; i < 5_000; i++) {
      // Mostly valid, sometimes out of range (month 13, day 31 in a 30-day month, hour 24...).
      const year = pick(1999, 2030)
      const text = `${year}-${pad(pick(0, 13))}-${pad(pick(0, 32))}T${pad(pick(0, 24))}:${pad(pick(0, 60))}:${pad(pick(0, 60))}.${pad(pick(0, 999), 3)}Z`
      const answer = oneRecord(text)
      const exact = bucketExactly(answer, year)
      const scanned = scanCanonical(answer, year)
      if (scanned) fast++
      if (scanned) expectSame(scanned, exact, text)
      expectSame(bucketUsage(answer, year), exact, text)
    }
    expect(fast).toBeGreaterThan(2_500)
  })

  it('leaves every other form to exact parsing', () => {
    expect(scanCanonical(oneRecord('2026-03-01T09:15:00Z'), 2026)).toBeNull()
    expect(scanCanonical(oneRecord('2026-03-01T09:15:00.000+09:00'), 2026)).toBeNull()
    expect(scanCanonical(oneRecord('2026-03-01 09:15:00.000Z'), 2026)).toBeNull()
    expect(scanCanonical(oneRecord('2026-03-01T09:15:00.000Z'), 2026)?.days[2]?.[0]).toBe(1000)
  })
})

describe('the byte scanner for the server’s own answers', () => {
  const canonical = (usages: { createdAt: string; amount: number }[]) =>
    new TextEncoder().encode(
      `{"usages":[${usages.map((u) => `{"createdAt":"${u.createdAt}","amount":${u.amount}}`).join(',')}]}`,
    )

  function records(next: () => number, count: number) {
    return Array.from({ length: count }, () => ({
      createdAt: new Date(Date.UTC(2025, 11, 25) + Math.floor(next() * 400 * 86_400_000)).toISOString(),
      amount: 3000 + Math.floor(next() * 11) * 500,
    }))
  }

  it('reads the canonical form itself, without falling back', () => {
    const usages = records(random(7), 2000)
    const scanned = scanCanonical(canonical(usages), 2026)
    expect(scanned).not.toBeNull()
    expect(scanned).toEqual(bucketExactly(canonical(usages), 2026))
    expect(scanCanonical(canonical([]), 2026)).toEqual(emptyBuckets(2026))
  })

  it('agrees with exact parsing on 300 random answers, canonical or spoiled in one place', () => {
    const next = random(2026)
    const spoilers: [RegExp, string][] = [
      [/"amount":(\d+)/, '"amount":$1.5'],
      [/"amount":(\d+)/, '"amount":-$1'],
      [/"amount":(\d+)/, '"amount": $1'],
      [/"createdAt":"(\d{4})-\d\d/, '"createdAt":"$1-13'],
      [/"createdAt":"(\d{4}-\d\d)-\d\d/, '"createdAt":"$1-31'],
      [/\.(\d{3})Z/, '.$1+09:00'],
      [/\.\d{3}Z/, 'Z'],
      [/T(\d\d)/, 'T24'],
      [/,\{"createdAt"/, ', {"createdAt"'],
      [/\{"createdAt":("[^"]+"),"amount":(\d+)\}/, '{"amount":$2,"createdAt":$1}'],
      [/"amount":(\d+)\}/, '"amount":$1,"machine":"dryer 2"}'],
      [/\]\}$/, ']}\n'],
    ]
    let fellBack = 0
    for (let i = 0; i < 300; i++) {
      let text = new TextDecoder().decode(canonical(records(next, 1 + Math.floor(next() * 60))))
      if (i % 2 === 1) {
        const [pattern, replacement] = spoilers[Math.floor(next() * spoilers.length)] as [RegExp, string]
        text = text.replace(pattern, replacement)
      }
      const bytes = new TextEncoder().encode(text)
      if (scanCanonical(bytes, 2026) === null) fellBack++
      expectSame(bucketUsage(bytes, 2026), bucketExactly(bytes, 2026), text.slice(0, 120))
    }
    expect(fellBack).toBeGreaterThan(100)
  })

  it('rejects what JSON.parse rejects, rather than summing it', () => {
    const leadingZero = new TextEncoder().encode(
      '{"usages":[{"createdAt":"2026-03-01T09:15:00.000Z","amount":04000}]}',
    )
    expect(scanCanonical(leadingZero, 2026)).toBeNull()
    expect(() => bucketUsage(leadingZero, 2026)).toThrow(SyntaxError)
  })
})

describe('the calendar', () => {
  it('counts the days of every month of 1900 to 2100 as Date does', () => {
    for (let year = 1900; year <= 2100; year++) {
      for (let month = 1; month <= 12; month++) {
        expect(daysInMonth(year, month)).toBe(new Date(Date.UTC(year, month, 0)).getUTCDate())
      }
    }
  })
})

type Raw = { createdAt: string; amount: number }

/**
 * The slow, obviously correct bucketing every field is checked against: a Date per record, its UTC
 * getters, and each figure summed straight from the records (not from the hours).
 */
function reference(usages: readonly { createdAt: unknown; amount: unknown }[], year: number): Buckets {
  const hours = (Date.UTC(year + 1, 0, 1) - Date.UTC(year, 0, 1)) / 3_600_000
  const b: Buckets = {
    year,
    months: Array(12).fill(0),
    days: Array.from({ length: 12 }, (_, m) =>
      Array(new Date(Date.UTC(year, m + 1, 0)).getUTCDate()).fill(0),
    ),
    monthCounts: Array(12).fill(0),
    dayCounts: Array.from({ length: 12 }, (_, m) =>
      Array(new Date(Date.UTC(year, m + 1, 0)).getUTCDate()).fill(0),
    ),
    hourSums: Array(hours).fill(0),
    hourCounts: Array(hours).fill(0),
    lastSaleAt: null,
    total: 0,
    sales: 0,
    records: 0,
    skipped: 0,
  }
  for (const { createdAt, amount } of usages) {
    const date = new Date(createdAt as string)
    if (
      typeof createdAt !== 'string' ||
      Number.isNaN(date.getTime()) ||
      date.getUTCFullYear() !== year ||
      typeof amount !== 'number' ||
      !Number.isFinite(amount)
    ) {
      b.skipped++
      continue
    }
    const m = date.getUTCMonth()
    const d = date.getUTCDate() - 1
    const dayOfYear = (Date.UTC(year, m, d + 1) - Date.UTC(year, 0, 1)) / 86_400_000
    const hour = dayOfYear * 24 + date.getUTCHours()
    const sale = amount > 0 ? 1 : 0
    const add = (values: number[], at: number, value: number) => {
      values[at] = (values[at] as number) + value
    }
    add(b.days[m] as number[], d, amount)
    add(b.dayCounts[m] as number[], d, sale)
    add(b.months, m, amount)
    add(b.monthCounts, m, sale)
    add(b.hourSums, hour, amount)
    add(b.hourCounts, hour, sale)
    b.total += amount
    b.sales += sale
    b.records++
    if (sale && (b.lastSaleAt === null || date.getTime() > b.lastSaleAt)) b.lastSaleAt = date.getTime()
  }
  return b
}

const utc = Date.UTC
/** Instants that test the edges: year, month and leap-day ends, the same instant twice. */
const edges = (year: number) => [
  utc(year, 0, 1),
  utc(year, 0, 1) - 1,
  utc(year + 1, 0, 1) - 1,
  utc(year + 1, 0, 1),
  utc(year, 1, 28, 23, 59, 59, 999),
  utc(year, 1, 29, 0, 0, 0, 0), // 29 February in a leap year, 1 March otherwise
  utc(year, 1, 29, 23, 30),
  utc(year, 2, 1) - 1,
  utc(year, 5, 30, 23, 59, 59, 999),
  utc(year, 6, 1),
  utc(year, 10, 24, 14, 30),
]
const recordsOf = (year: number) =>
  fc.array(
    fc.record({
      at: fc.oneof(
        fc.constantFrom(...edges(year)),
        fc.integer({ min: utc(year, 0, 1) - 3_600_000, max: utc(year + 1, 0, 1) + 3_600_000 }),
      ),
      amount: fc.oneof(
        fc.constantFrom(0, 1, -1, 4000, -4000, 10_000_000),
        fc.integer({ min: -20_000, max: 20_000 }),
        fc.integer({ min: 1, max: 20 }).map((n) => n * 500),
      ),
    }),
    { maxLength: 80 },
  )
const yearsAndRecords = fc
  .constantFrom(2024, 2025, 2026, 2100, 2000)
  .chain((year) => fc.tuple(fc.constant(year), recordsOf(year)))

/** The canonical bytes the server writes (contract/usage-bytes.md). */
const canonicalBytes = (usages: readonly Raw[]) =>
  new TextEncoder().encode(
    `{"usages":[${usages.map((u) => `{"createdAt":"${u.createdAt}","amount":${u.amount}}`).join(',')}]}`,
  )

describe('every figure of the buckets, against a slow reference (Date and its UTC getters)', () => {
  it('fills sums and sales per day, month and UTC hour, and the last sale, on both paths, in any record order', () => {
    fc.assert(
      fc.property(yearsAndRecords, ([year, generated]) => {
        const usages = generated.map(({ at, amount }) => ({ createdAt: new Date(at).toISOString(), amount }))
        const expected = reference(usages, year)
        const answer = canonicalBytes(usages)
        const scanned = scanCanonical(answer, year)
        expect(scanned).not.toBeNull()
        expectSame(scanned as Buckets, expected)
        expectSame(bucketExactly(answer, year), expected)
        // The records reversed: the same buckets, the last sale still the latest instant.
        expectSame(bucketUsage(canonicalBytes([...usages].reverse()), year), expected)
      }),
      { seed: 1212, numRuns: 300 },
    )
  })

  it('reads other layouts exactly: offsets, no milliseconds, fractional and non-finite amounts', () => {
    fc.assert(
      fc.property(yearsAndRecords, fc.integer({ min: 0, max: 3 }), ([year, generated], form) => {
        // Amounts in quarters are exact in binary, so sums in any order are equal.
        const usages = generated.map(({ at, amount }, i) => ({
          // In Korean time with an offset, without milliseconds (another instant, read the same by
          // both sides), or canonical.
          createdAt:
            form === 1
              ? new Date(at + 9 * 3_600_000).toISOString().replace('Z', '+09:00')
              : form === 2
                ? new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z')
                : new Date(at).toISOString(),
          amount: i % 7 === 3 ? amount + 0.25 : amount,
        }))
        // Some records with an amount JSON.parse reads as Infinity (1e999), or null, or a string.
        const texts = usages.map((u, i) =>
          i % 5 === 4
            ? `{"createdAt":"${u.createdAt}","amount":${['1e999', '-1e999', 'null', '"4000"'][i % 4]}}`
            : JSON.stringify(u),
        )
        const answer = new TextEncoder().encode(`{ "usages": [${texts.join(', ')}] }`)
        const parsed = (JSON.parse(new TextDecoder().decode(answer)) as { usages: Raw[] }).usages
        const expected = reference(parsed, year)
        expect(scanCanonical(answer, year)).toBeNull()
        expectSame(bucketUsage(answer, year), expected)
        expect(expected.skipped).toBeGreaterThanOrEqual(Math.floor(usages.length / 5))
      }),
      { seed: 2024, numRuns: 200 },
    )
  })

  it('counts a sale only for an amount above zero: a refund lowers the sums and a zero amount counts nothing', () => {
    const b = bucketUsage(
      canonicalBytes([
        { createdAt: '2026-03-01T10:15:00.000Z', amount: 4000 },
        { createdAt: '2026-03-01T10:20:00.000Z', amount: -1500 },
        { createdAt: '2026-03-01T10:25:00.000Z', amount: 0 },
      ]),
      2026,
    )
    const hour = (31 + 28) * 24 + 10
    expect([b.hourSums[hour], b.hourCounts[hour]]).toEqual([2500, 1])
    expect([b.days[2]?.[0], b.dayCounts[2]?.[0], b.months[2], b.monthCounts[2]]).toEqual([2500, 1, 2500, 1])
    expect([b.total, b.sales, b.records, b.skipped]).toEqual([2500, 1, 3, 0])
    expect(b.lastSaleAt).toBe(Date.parse('2026-03-01T10:15:00.000Z'))
  })

  it('takes the latest sale by its instant, whatever the order, never a later refund', () => {
    const b = bucketUsage(
      canonicalBytes([
        { createdAt: '2026-11-24T22:47:10.500Z', amount: 3000 },
        { createdAt: '2026-11-24T23:59:00.000Z', amount: -3000 },
        { createdAt: '2026-11-24T23:00:00.000Z', amount: 0 },
        { createdAt: '2026-01-02T00:00:00.000Z', amount: 5000 },
      ]),
      2026,
    )
    expect(b.lastSaleAt).toBe(Date.parse('2026-11-24T22:47:10.500Z'))
    expect(
      bucketUsage(canonicalBytes([{ createdAt: '2026-01-01T00:00:00.000Z', amount: -1 }]), 2026).lastSaleAt,
    ).toBeNull()
  })

  it('has (days in the year) × 24 hours, the last one 31 December 23:00 UTC', () => {
    expect(emptyBuckets(2024).hourSums).toHaveLength(366 * 24)
    expect(emptyBuckets(2026).hourCounts).toHaveLength(365 * 24)
    const b = bucketUsage(canonicalBytes([{ createdAt: '2024-12-31T23:59:59.999Z', amount: 700 }]), 2024)
    expect(b.hourSums[366 * 24 - 1]).toBe(700)
  })

  it('skips and counts an amount that is not a finite number, like a bad timestamp', () => {
    const b = bucketUsage(
      new TextEncoder().encode(
        '{"usages":[{"createdAt":"2026-03-01T10:00:00.000Z","amount":1e999},{"createdAt":"2026-03-01T10:00:00.000Z","amount":-1e999},{"createdAt":"2026-03-01T10:00:00.000Z","amount":2000}]}',
      ),
      2026,
    )
    expect([b.total, b.sales, b.records, b.skipped]).toEqual([2000, 1, 1, 2])
  })
})

describe('the buckets as kept on the device (packed hourly arrays)', () => {
  it('unpacks to the same buckets after a trip through JSON, and is much smaller', () => {
    fc.assert(
      fc.property(yearsAndRecords, ([year, generated]) => {
        const usages = generated.map(({ at, amount }) => ({ createdAt: new Date(at).toISOString(), amount }))
        const buckets = bucketUsage(canonicalBytes(usages), year)
        const kept = JSON.parse(JSON.stringify(packBuckets(buckets)))
        expect(unpackBuckets(kept)).toEqual(buckets)
      }),
      { seed: 7, numRuns: 100 },
    )
    const busy = bucketUsage(
      canonicalBytes(
        Array.from({ length: 70_000 }, (_, i) => ({
          createdAt: new Date(utc(2026, 0, 1) + i * 450_000).toISOString(),
          amount: 3000 + (i % 11) * 500,
        })),
      ),
      2026,
    )
    expect(JSON.stringify(packBuckets(busy)).length).toBeLessThan(JSON.stringify(busy).length / 2)
  })

  it('packs any safe integers, zero runs included, and keeps other numbers as they are', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constant(0),
            fc.integer({ min: -1_000_000, max: 1_000_000 }),
            fc.constantFrom(2 ** 51, -(2 ** 51)),
          ),
        ),
        (values) => {
          expect(unpackSeries(JSON.parse(JSON.stringify(packSeries(values))), values.length)).toEqual(values)
        },
      ),
      { seed: 3, numRuns: 300 },
    )
    expect(packSeries([0.5, 1])).toEqual([0.5, 1])
    expect(packSeries([Number.MAX_SAFE_INTEGER])).toEqual([Number.MAX_SAFE_INTEGER])
    expect(unpackSeries(packSeries([0, 0, 0, 0, 0]), 5)).toEqual([0, 0, 0, 0, 0])
    expect(() => unpackSeries(packSeries([1, 2, 3]), 4)).toThrow()
    expect(() => unpackSeries('1;!!', 1)).toThrow()
  })
})
