import { describe, expect, it } from 'vitest'
import { bucketExactly, bucketUsage, scanCanonical } from '../../src/workers/bucket-records.ts'
import { daysInMonth, emptyBuckets } from '../../src/workers/buckets.ts'

/** A deterministic generator, so a failure can be reproduced. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state / 2 ** 31
  }
}

const bytes = (usages: unknown[]) => new TextEncoder().encode(JSON.stringify({ usages }))

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

  it('agrees with exact parsing on 20,000 random timestamps, valid and not', () => {
    const next = random(42)
    const pick = (low: number, high: number) => low + Math.floor(next() * (high - low + 1))
    const pad = (n: number, width = 2) => String(n).padStart(width, '0')
    let fast = 0
    for (let i = 0; i < 20_000; i++) {
      // Mostly valid, sometimes out of range (month 13, day 31 in a 30-day month, hour 24...).
      const year = pick(1999, 2030)
      const text = `${year}-${pad(pick(0, 13))}-${pad(pick(0, 32))}T${pad(pick(0, 24))}:${pad(pick(0, 60))}:${pad(pick(0, 60))}.${pad(pick(0, 999), 3)}Z`
      const answer = oneRecord(text)
      const exact = bucketExactly(answer, year)
      const scanned = scanCanonical(answer, year)
      if (scanned) fast++
      if (scanned) expect(scanned, text).toEqual(exact)
      expect(bucketUsage(answer, year), text).toEqual(exact)
    }
    expect(fast).toBeGreaterThan(10_000)
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
      expect(bucketUsage(bytes, 2026), text.slice(0, 120)).toEqual(bucketExactly(bytes, 2026))
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
