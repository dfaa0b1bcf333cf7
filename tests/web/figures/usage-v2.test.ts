// The compact usage answer's version 2 in the app (contract/usage-compact.md "Version 2", decision 116):
// its leading sums equal the buckets of its own records and of the same records as JSON, for any
// records; the worker's feed gives them as soon as their bytes are in, before the last byte; the
// records win over sums that contradict them, and the difference is reported as an error.
import { QueryClient } from '@tanstack/react-query'
import fc from 'fast-check'
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { encodeUsage, encodeUsageV2, leadingSums, readLeadingSums } from '../../../contract/usage-compact.ts'
import { compactUsageTypeV2, usageAccept } from '../../../contract/usage-compact-type.ts'
import { bucketCompact, leadingBuckets } from '../../../domain/bucketing.ts'
import type { Buckets } from '../../../domain/buckets.ts'
import { leadingKey, type Usage, usageKeys, usageQuery } from '../../../src/figures/year-query.ts'
import { bucketExactly } from '../../../src/workers/bucket-exact.ts'
import { type BucketReply, bucketing, usageFeed } from '../../../src/workers/bucket-feed.ts'
import { fakeServer } from '../fake-server.ts'

type Row = { at: number; amount: number }

const json = (rows: readonly Row[]) =>
  new TextEncoder().encode(
    `{"usages":[${rows.map((r) => `{"createdAt":"${new Date(r.at).toISOString()}","amount":${r.amount}}`).join(',')}]}`,
  )

function v2(year: number, rows: readonly Row[]) {
  const at = rows.map((r) => r.at)
  const amounts = rows.map((r) => r.amount)
  return {
    bytes: encodeUsageV2(leadingSums(year, at, amounts), encodeUsage(at, amounts)),
    v1: encodeUsage(at, amounts),
  }
}

const rowsOf = (year: number) =>
  fc.array(
    fc.record({
      // A little of the years around too: those records are skipped by every path alike.
      at: fc.integer({ min: Date.UTC(year, 0, 1) - 86_400_000, max: Date.UTC(year + 1, 0, 1) + 86_400_000 }),
      amount: fc.oneof(
        fc.constantFrom(3000, 4000, 4500, 0, -4000),
        fc.integer({ min: -10_000_000, max: 10_000_000 }),
      ),
    }),
    { maxLength: 200 },
  )

/** toEqual, made quick for 8,784-long hourly arrays: its difference only when they differ. */
function expectSame(actual: unknown, expected: unknown) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected)
}

/** Everything in buckets but the hours, the records and the last sale (which need the records). */
const firstScreen = (b: ReturnType<typeof bucketCompact>) => ({
  year: b.year,
  days: b.days,
  dayCounts: b.dayCounts,
  months: b.months,
  monthCounts: b.monthCounts,
  total: b.total,
  sales: b.sales,
})

describe('version 2’s leading sums', () => {
  it('equal the buckets of its records and of the same records as JSON, for any records', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(2024, 2026).chain((year) => fc.tuple(fc.constant(year), rowsOf(year))),
        ([year, rows]) => {
          const { bytes, v1 } = v2(year, rows)
          const lead = readLeadingSums(bytes, year)
          if (!lead) throw new Error('no leading sums')
          // The records are version 1's bytes exactly.
          expect(bytes.subarray(lead.recordsAt)).toEqual(v1)
          const fromRecords = bucketCompact(v1, year)
          const fromJson = bucketExactly(json(rows), year)
          expectSame(fromRecords, fromJson)
          expectSame(lead.sums.daySums, fromJson.days.flat())
          expectSame(lead.sums.dayCounts, fromJson.dayCounts.flat())
          expectSame(firstScreen(leadingBuckets(lead.sums)), firstScreen(fromJson))
          const feed = usageFeed(year, compactUsageTypeV2, () => {})
          feed.push(bytes)
          expectSame(feed.end(), fromJson)
        },
      ),
      { seed: 25, numRuns: 150 },
    )
  })

  it('are read only once all their bytes are in, and refuse another year', () => {
    const { bytes } = v2(2026, [{ at: Date.UTC(2026, 4, 5, 10), amount: 4000 }])
    const { recordsAt } = readLeadingSums(bytes, 2026) ?? { recordsAt: -1 }
    for (let end = 0; end < recordsAt; end++)
      expect(readLeadingSums(bytes.subarray(0, end), 2026)).toBeUndefined()
    expect(readLeadingSums(bytes.subarray(0, recordsAt), 2026)?.sums.daySums[124]).toBe(4000)
    expect(() => readLeadingSums(bytes, 2025)).toThrow()
    expect(() => readLeadingSums(encodeUsage([], []), 2026)).toThrow()
  })
})

describe('the worker’s feed', () => {
  const rows: Row[] = Array.from({ length: 500 }, (_, i) => ({
    at: Date.UTC(2026, 0, 1) + i * 17_000_123,
    amount: i % 11 === 0 ? -3000 : 3000 + (i % 4) * 500,
  }))

  it('gives the leading buckets after the sums’ bytes and before the last byte, then the records’', () => {
    const { bytes } = v2(2026, rows)
    const { recordsAt } = readLeadingSums(bytes, 2026) ?? { recordsAt: 0 }
    const leadAt: number[] = []
    let fed = 0
    const feed = usageFeed(2026, compactUsageTypeV2, (lead) => {
      leadAt.push(fed)
      expect(lead.total).toBe(bucketCompact(bytes.subarray(recordsAt), 2026).total)
    })
    for (; fed < bytes.length; ) {
      const piece = bytes.slice(fed, fed + 7)
      fed += piece.length
      feed.push(piece)
    }
    const error = vi.spyOn(console, 'error')
    const buckets = feed.end()
    expect(leadAt).toHaveLength(1)
    expect(leadAt[0]).toBeGreaterThanOrEqual(recordsAt)
    expect(leadAt[0]).toBeLessThan(recordsAt + 7)
    expect(leadAt[0]).toBeLessThan(bytes.length)
    expect(error).not.toHaveBeenCalled()
    error.mockRestore()
    expect(buckets).toEqual(bucketExactly(json(rows), 2026))
  })

  it('a version 1 or JSON answer: no leading buckets, the same buckets', () => {
    for (const [type, bytes] of [
      [
        'application/vnd.laundry.usage; v=1',
        encodeUsage(
          rows.map((r) => r.at),
          rows.map((r) => r.amount),
        ),
      ],
      ['application/json', json(rows)],
    ] as const) {
      const onLeading = vi.fn()
      const feed = usageFeed(2026, type, onLeading)
      for (let at = 0; at < bytes.length; at += 100) feed.push(bytes.slice(at, at + 100))
      expect(feed.end()).toEqual(bucketExactly(json(rows), 2026))
      expect(onLeading).not.toHaveBeenCalled()
    }
  })

  it('JSON in another layout: the exact path, loaded on demand, gives the same buckets', async () => {
    const spaced = new TextEncoder().encode(
      JSON.stringify(
        { usages: rows.map((r) => ({ amount: r.amount, createdAt: new Date(r.at).toISOString() })) },
        null,
        1,
      ),
    )
    const feed = usageFeed(2026, 'application/json', () => {})
    for (let at = 0; at < spaced.length; at += 100) feed.push(spaced.slice(at, at + 100))
    const end = feed.end()
    expect(end).toBeInstanceOf(Promise)
    expect(await end).toEqual(bucketExactly(json(rows), 2026))
  })
})

describe('bucketing by messages (the worker’s, and the main thread’s without one)', () => {
  const rows: Row[] = [
    { at: Date.UTC(2026, 2, 1, 9), amount: 4000 },
    { at: Date.UTC(2026, 6, 7, 12), amount: 3500 },
  ]

  it('answers several answers at once by their ids: the leading buckets, then the buckets or the error', async () => {
    const replies: BucketReply[] = []
    const handle = bucketing((reply) => replies.push(reply))
    const { bytes } = v2(2026, rows)
    await handle({ id: 1, year: 2026, contentType: compactUsageTypeV2 })
    await handle({ id: 2, year: 2026, contentType: 'application/json' })
    await handle({ id: 3, year: 2026, contentType: compactUsageTypeV2 })
    await handle({ id: 1, piece: bytes })
    await handle({ id: 2, piece: json(rows) })
    await handle({ id: 3, piece: bytes.slice(0, 10) })
    await handle({ id: 2, end: true })
    await handle({ id: 1, end: true })
    // A body that failed: dropped, with no reply, and nothing more for its id.
    await handle({ id: 3, end: false })
    await handle({ id: 3, end: true })
    expect(replies.map((reply) => [reply.id, Object.keys(reply)[1]])).toEqual([
      [1, 'leading'],
      [2, 'buckets'],
      [1, 'buckets'],
    ])
    expect(replies[1]).toEqual({ id: 2, buckets: bucketExactly(json(rows), 2026) })
    expect(replies[2]).toEqual({ id: 1, buckets: bucketExactly(json(rows), 2026) })
    // An answer cut within its leading sums is malformed.
    await handle({ id: 4, year: 2026, contentType: compactUsageTypeV2 })
    await handle({ id: 4, piece: bytes.slice(0, 10) })
    await handle({ id: 4, end: true })
    expect(replies[3]).toEqual({ id: 4, error: 'compact usage: malformed answer' })
  })
})

/** A version 2 answer whose leading sums lie: one day's sum raised by 1,000 won. */
function wrongHeader(year: number, rows: readonly Row[]) {
  const at = rows.map((r) => r.at)
  const amounts = rows.map((r) => r.amount)
  const sums = leadingSums(year, at, amounts)
  sums.daySums[59] = (sums.daySums[59] as number) + 1000
  return encodeUsageV2(sums, encodeUsage(at, amounts))
}

/** A body delivered in pieces of `size` bytes, each after the test lets it go (`next`), or cut (`cut`). */
function dripping(bytes: Uint8Array, size: number) {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let at = 0
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
  })
  return {
    body,
    /** Sends pieces until `until` bytes have gone (all by default); closes after the last. */
    next(until = bytes.length) {
      const end = Math.min(until, bytes.length)
      while (at < end) {
        const piece = bytes.slice(at, Math.min(at + size, end))
        controller.enqueue(piece)
        at += piece.length
      }
      if (at >= bytes.length) controller.close()
    },
    cut: () => controller.error(new TypeError('network error')),
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('the usage query with version 2', () => {
  beforeEach(() => {
    Cookies.set('accessToken', 'a1', { path: '/' })
    Cookies.set('refreshToken', 'r1', { path: '/' })
  })
  const rows: Row[] = [
    { at: Date.UTC(2026, 2, 1, 9), amount: 4000 },
    { at: Date.UTC(2026, 2, 1, 10), amount: -1000 },
    { at: Date.UTC(2026, 6, 7, 12), amount: 3500 },
  ]

  it('shows the leading sums while the records stream, then keeps only the records’ buckets', async () => {
    const { bytes } = v2(2026, rows)
    const { recordsAt } = readLeadingSums(bytes, 2026) ?? { recordsAt: 0 }
    const stream = dripping(bytes, 16)
    const server = fakeServer({
      'GET /api/v0/store/1/usage': () =>
        new Response(stream.body, {
          headers: { 'content-type': compactUsageTypeV2, etag: 'W/"2"', 'usage-revision': '3' },
        }),
    })
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const fetched = client.fetchQuery(usageQuery(1, 2026))
    await settle()
    expect(server.calls[0]?.accept).toBe(usageAccept)
    expect(client.getQueryData<Buckets>(leadingKey(1, 2026))).toBeUndefined()
    stream.next(recordsAt - 1)
    await settle()
    expect(client.getQueryData<Buckets>(leadingKey(1, 2026))).toBeUndefined()
    stream.next(recordsAt + 16)
    await settle()
    expect(client.getQueryData<Buckets>(leadingKey(1, 2026))?.total).toBe(6500)
    expect(client.getQueryData<Buckets>(leadingKey(1, 2026))?.months[2]).toBe(3000)
    expect(client.getQueryData(usageKeys.year(1, 2026))).toBeUndefined()
    stream.next()
    const usage = await fetched
    expect(usage).toMatchObject({ etag: 'W/"2"', rev: 3, buckets: { total: 6500, sales: 2, records: 3 } })
    expect(client.getQueryData<Buckets>(leadingKey(1, 2026))).toBeUndefined()
  })

  it('a connection cut after the sums: the query fails, the sums stay shown, nothing is kept', async () => {
    const { bytes } = v2(2026, rows)
    const { recordsAt } = readLeadingSums(bytes, 2026) ?? { recordsAt: 0 }
    const stream = dripping(bytes, 16)
    fakeServer({
      'GET /api/v0/store/2/usage': () =>
        new Response(stream.body, { headers: { 'content-type': compactUsageTypeV2, etag: 'W/"2"' } }),
    })
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const fetched = client.fetchQuery(usageQuery(2, 2026))
    await settle()
    stream.next(recordsAt + 16)
    await settle()
    stream.cut()
    await expect(fetched).rejects.toThrow()
    expect(client.getQueryData<Buckets>(leadingKey(2, 2026))?.total).toBe(6500)
    expect(client.getQueryData<Usage>(usageKeys.year(2, 2026))).toBeUndefined()
  })

  it('leading sums that contradict the records: the records win, and the difference is reported as an error', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    fakeServer({
      'GET /api/v0/store/3/usage': () =>
        new Response(wrongHeader(2026, rows), {
          headers: { 'content-type': compactUsageTypeV2, etag: 'W/"x"' },
        }),
    })
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const usage = await client.fetchQuery(usageQuery(3, 2026))
    expect(usage.buckets.total).toBe(6500)
    expect(usage.buckets.days[2]?.[0]).toBe(3000)
    expect(error).toHaveBeenCalledTimes(1)
    expect(String(error.mock.calls[0]?.[0])).toMatch(/leading sums ≠ records \(7500 ≠ 6500\)/)
    error.mockRestore()
  })
})
