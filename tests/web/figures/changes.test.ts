import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type Buckets, emptyBuckets } from '../../../domain/buckets.ts'
import { type Change, type ChangesAnswer, mergeChanges } from '../../../domain/changes.ts'
import { bucketExactly } from '../../../src/workers/bucket-exact.ts'

const year = 2028 // a leap year
interface SaleRecord {
  at: number
  amount: number
}
const iso = (at: number) => new Date(at).toISOString()
const inYear = (record: SaleRecord) => new Date(record.at).getUTCFullYear() === year

/** A fresh full fetch: the year's records as the usage answer, bucketed as the app does. */
const fullFetch = (records: SaleRecord[]) =>
  bucketExactly(
    new TextEncoder().encode(
      JSON.stringify({
        usages: records.filter(inYear).map((r) => ({ createdAt: iso(r.at), amount: r.amount })),
      }),
    ),
    year,
  )

/** The slow, obviously correct reference: every figure counted from the records by Date's own getters. */
function reference(records: SaleRecord[]) {
  const mine = records.filter(inYear)
  const b = emptyBuckets(year)
  for (const { at, amount } of mine) {
    const date = new Date(at)
    const m = date.getUTCMonth()
    const d = date.getUTCDate() - 1
    let dayOfYear = 0
    for (let month = 0; month < m; month++) dayOfYear += (b.days[month] as number[]).length
    const hour = (dayOfYear + d) * 24 + date.getUTCHours()
    const sale = amount > 0 ? 1 : 0
    b.hourSums[hour] = (b.hourSums[hour] as number) + amount
    b.hourCounts[hour] = (b.hourCounts[hour] as number) + sale
    ;(b.days[m] as number[])[d] = ((b.days[m] as number[])[d] as number) + amount
    ;(b.dayCounts[m] as number[])[d] = ((b.dayCounts[m] as number[])[d] as number) + sale
    b.months[m] = (b.months[m] as number) + amount
    b.monthCounts[m] = (b.monthCounts[m] as number) + sale
    b.total += amount
    b.sales += sale
    b.records += 1
  }
  const sales = mine.filter((r) => r.amount > 0).map((r) => r.at)
  b.lastSaleAt = sales.length ? Math.max(...sales) : null
  return b
}

/** A server's store-year: its records, its log of changes by revision, and what it still keeps of the log. */
function server(initial: SaleRecord[]) {
  const records = [...initial]
  const log: { rev: number; change: Change }[] = []
  let rev = initial.length
  let keptFrom = rev
  const change = (op: Change['op'], r: SaleRecord) => {
    rev += 1
    // The log of this year holds this year's changes; one of another year would never touch it anyway.
    log.push({ rev, change: { op, createdAt: iso(r.at), amount: r.amount } })
  }
  return {
    records,
    rev: () => rev,
    put(r: SaleRecord) {
      records.push(r)
      change('put', r)
    },
    del(index: number) {
      const [r] = records.splice(index % records.length, 1)
      if (r) change('del', r)
    },
    forget: () => {
      keptFrom = rev
    },
    answer(after: number): ChangesAnswer & { after: number } {
      if (after < keptFrom) return { after, rev, reset: true }
      const mine = records.filter(inYear)
      return {
        after,
        rev,
        changes: log.filter((entry) => entry.rev > after).map((entry) => entry.change),
        count: mine.length,
        sum: mine.reduce((sum, r) => sum + r.amount, 0),
      }
    },
  }
}

const start = Date.UTC(year, 0, 1)
const end = Date.UTC(year + 1, 0, 1)
const record = fc.record({
  // Mostly this year; a few days on either side of it (another year's sale never touches this one).
  at: fc.oneof(
    { weight: 9, arbitrary: fc.integer({ min: start, max: end - 1 }) },
    { weight: 1, arbitrary: fc.integer({ min: start - 3 * 86_400_000, max: end + 3 * 86_400_000 }) },
  ),
  amount: fc.oneof(fc.integer({ min: 1, max: 20_000 }), fc.integer({ min: -5000, max: 0 })),
})
const step = fc.oneof(
  fc.tuple(fc.constant('put' as const), record),
  fc.tuple(fc.constant('del' as const), fc.nat()),
  fc.tuple(fc.constant('ask' as const), fc.boolean()),
  fc.tuple(fc.constant('deliver' as const), fc.nat(), fc.boolean()),
  fc.tuple(fc.constant('forget' as const)),
)

describe('merging changes into the kept buckets', () => {
  it('equals a fresh full fetch after any interleaving of puts, deletes, duplicate and late answers, and resets', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 40 }),
        fc.array(step, { maxLength: 80 }),
        (initial, steps) => {
          const year_ = server(initial)
          let kept = { buckets: fullFetch(year_.records), rev: year_.rev() }
          const inbox: ReturnType<typeof year_.answer>[] = []
          const deliver = (answer: ReturnType<typeof year_.answer>) => {
            const merged = mergeChanges(kept.buckets, kept.rev, answer.after, answer)
            if (merged === 'refetch') {
              // Only for a reason an honest server gives: a reset, or a sale deleted (maybe the latest);
              // never a checksum that fails because an answer was merged twice or out of turn.
              expect(answer.reset || answer.changes?.some((c) => c.op === 'del' && c.amount > 0)).toBe(true)
              kept = { buckets: fullFetch(year_.records), rev: year_.rev() }
            } else if (typeof merged === 'object') kept = { buckets: merged, rev: answer.rev }
          }
          for (const s of steps) {
            if (s[0] === 'put') year_.put(s[1])
            else if (s[0] === 'del' && year_.records.length) year_.del(s[1])
            else if (s[0] === 'ask') {
              const answer = year_.answer(kept.rev)
              inbox.push(answer)
              if (s[1]) inbox.push(answer) // delivered twice
            } else if (s[0] === 'deliver' && inbox.length) {
              // Any answer still on its way, in any order; kept on the way now and then (delivered again).
              const i = s[1] % inbox.length
              const answer = inbox[i] as (typeof inbox)[number]
              if (!s[2]) inbox.splice(i, 1)
              deliver(answer)
            } else if (s[0] === 'forget') year_.forget()
          }
          for (const answer of inbox) deliver(answer)
          deliver(year_.answer(kept.rev))
          expect(kept.rev).toBe(year_.rev())
          const fresh = fullFetch(year_.records)
          expect(kept.buckets).toEqual(fresh)
          expect(reference(year_.records)).toEqual(fresh)
        },
      ),
      { numRuns: 100 },
    )
  })
})

describe('an answer', () => {
  const sale = (createdAt: string, amount: number, op: Change['op'] = 'put'): Change => ({
    op,
    createdAt,
    amount,
  })
  const withSales = (y: number, changes: Change[]): Buckets => {
    const merged = mergeChanges(emptyBuckets(y), 0, 0, {
      rev: 1,
      changes,
      count: changes.length,
      sum: changes.reduce((s, c) => s + c.amount, 0),
    })
    if (typeof merged !== 'object') throw new Error(`not merged: ${merged}`)
    return merged
  }

  it('lands a sale dated 31 December, arriving in January, in last year only', () => {
    const late = sale('2027-12-31T23:59:59.000Z', 5000)
    const last = mergeChanges(emptyBuckets(2027), 4, 4, { rev: 5, changes: [late], count: 1, sum: 5000 })
    expect(last).toMatchObject({ total: 5000, sales: 1, lastSaleAt: Date.parse(late.createdAt) })
    expect((last as Buckets).days[11]?.[30]).toBe(5000)
    const thisYear = withSales(2028, [sale('2028-01-01T00:10:00.000Z', 3000)])
    // This year's answer never names last year's sale, and a change of another year is skipped anyway.
    expect(mergeChanges(thisYear, 1, 1, { rev: 2, changes: [late], count: 1, sum: 3000 })).toMatchObject({
      total: 3000,
      sales: 1,
      months: [3000, ...Array(11).fill(0)],
    })
  })

  it('is ignored when it answers another revision than the kept one (a duplicate, a late one)', () => {
    const kept = withSales(2028, [sale('2028-03-01T10:00:00.000Z', 4000)])
    const answer = { rev: 2, changes: [sale('2028-03-01T11:00:00.000Z', 1000)], count: 2, sum: 5000 }
    const merged = mergeChanges(kept, 1, 1, answer)
    expect(merged).toMatchObject({ total: 5000, sales: 2 })
    expect(mergeChanges(merged as Buckets, 2, 1, answer)).toBe('stale')
    expect(mergeChanges(kept, 1, 1, { rev: 1, changes: [], count: 1, sum: 4000 })).toBe('same')
  })

  it('asks for the year again on a reset, a checksum that does not match, or the latest sale deleted', () => {
    const kept = withSales(2028, [
      sale('2028-03-01T10:00:00.000Z', 4000),
      sale('2028-03-02T10:00:00.000Z', 500),
    ])
    expect(mergeChanges(kept, 1, 1, { rev: 9, reset: true })).toBe('refetch')
    expect(mergeChanges(kept, 1, 1, { rev: 1, changes: [], count: 2, sum: 4000 })).toBe('refetch')
    expect(mergeChanges(kept, 1, 1, { rev: 0, changes: [], count: 2, sum: 4500 })).toBe('refetch')
    const latest = sale('2028-03-02T10:00:00.000Z', 500, 'del')
    expect(mergeChanges(kept, 1, 1, { rev: 2, changes: [latest], count: 1, sum: 4000 })).toBe('refetch')
    const earlier = sale('2028-03-01T10:00:00.000Z', 4000, 'del')
    expect(mergeChanges(kept, 1, 1, { rev: 2, changes: [earlier], count: 1, sum: 500 })).toMatchObject({
      total: 500,
      sales: 1,
      lastSaleAt: Date.parse('2028-03-02T10:00:00.000Z'),
    })
    // The kept buckets are never changed in place.
    expect(kept.total).toBe(4500)
  })
})
