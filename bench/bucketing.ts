// Bucketing speed: the worker's code (src/workers/bucket-records.ts) against a plain JSON.parse + Date loop
// over the same bytes, for a busy year (70,000 records) and an extreme one (1,000,000).
import { bucketUsage, scanCanonical } from '../src/workers/bucket-records.ts'
import { type Buckets, emptyBuckets } from '../src/workers/buckets.ts'

/** The server's canonical answer for `count` records spread over `year`, deterministic. */
export function canonicalAnswer(count: number, year: number): Uint8Array {
  const start = Date.UTC(year, 0, 1)
  const span = Date.UTC(year + 1, 0, 1) - start
  const parts: string[] = []
  let seed = 42
  for (let i = 0; i < count; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    const createdAt = new Date(
      start + Math.floor((i / count) * (span - 60_000)) + (seed % 60_000),
    ).toISOString()
    parts.push(`{"createdAt":"${createdAt}","amount":${3000 + (seed % 11) * 500}}`)
  }
  return new TextEncoder().encode(`{"usages":[${parts.join(',')}]}`)
}

/**
 * What a first version would do: parse everything, build a Date for every record, and fill the same
 * figures the worker fills (sums and sales per day, month and UTC hour, the last sale).
 */
export function baseline(bytes: Uint8Array, year: number): Buckets {
  const buckets = emptyBuckets(year)
  const { usages } = JSON.parse(new TextDecoder().decode(bytes)) as {
    usages: { createdAt: string; amount: number }[]
  }
  const yearStart = Date.UTC(year, 0, 1)
  for (const { createdAt, amount } of usages) {
    const date = new Date(createdAt)
    if (Number.isNaN(date.getTime()) || date.getUTCFullYear() !== year) {
      buckets.skipped++
      continue
    }
    const month = date.getUTCMonth()
    const day = date.getUTCDate() - 1
    const hour = Math.floor((date.getTime() - yearStart) / 3_600_000)
    const days = buckets.days[month] as number[]
    days[day] = (days[day] as number) + amount
    buckets.months[month] = (buckets.months[month] as number) + amount
    buckets.hourSums[hour] = (buckets.hourSums[hour] as number) + amount
    buckets.total += amount
    buckets.records++
    if (amount > 0) {
      const dayCounts = buckets.dayCounts[month] as number[]
      dayCounts[day] = (dayCounts[day] as number) + 1
      buckets.monthCounts[month] = (buckets.monthCounts[month] as number) + 1
      buckets.hourCounts[hour] = (buckets.hourCounts[hour] as number) + 1
      buckets.sales++
      if (buckets.lastSaleAt === null || date.getTime() > buckets.lastSaleAt)
        buckets.lastSaleAt = date.getTime()
    }
  }
  return buckets
}

function medianMs(runs: number, work: () => unknown) {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    work()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] as number
}

export function benchBucketing() {
  const results: Record<
    string,
    { records: number; bytes: number; fastMs: number; baselineMs: number; ratio: number }
  > = {}
  for (const [name, count, runs] of [
    ['70k', 70_000, 15],
    ['1M', 1_000_000, 5],
  ] as const) {
    const bytes = canonicalAnswer(count, 2026)
    if (!scanCanonical(bytes, 2026)) throw new Error('the canonical answer did not take the fast path')
    const fast = bucketUsage(bytes, 2026)
    const slow = baseline(bytes, 2026)
    if (JSON.stringify(fast) !== JSON.stringify(slow) || fast.records !== count)
      throw new Error('fast path and baseline disagree')
    // Warm up both, then take medians.
    medianMs(2, () => bucketUsage(bytes, 2026))
    medianMs(2, () => baseline(bytes, 2026))
    const fastMs = medianMs(runs, () => bucketUsage(bytes, 2026))
    const baselineMs = medianMs(runs, () => baseline(bytes, 2026))
    results[name] = { records: count, bytes: bytes.length, fastMs, baselineMs, ratio: baselineMs / fastMs }
  }
  return results
}
