// Bucketing speed: the worker's code (domain/bucketing.ts) against a plain JSON.parse + Date loop
// over the same bytes, for a busy year (70,000 records) and an extreme one (1,000,000); and the same
// records in the compact encoding (contract/usage-compact.ts) against the JSON fast path.
import { encodeUsage } from '../contract/usage-compact.ts'
import { compactUsageType } from '../contract/usage-compact-type.ts'
import { scanCanonical } from '../domain/bucketing.ts'
import { type Buckets, emptyBuckets } from '../domain/buckets.ts'
import { bucketUsage } from '../src/workers/bucket-exact.ts'

/** `count` records spread over `year`, sorted, deterministic: createdAt (ms) and amount columns. */
function records(count: number, year: number) {
  const start = Date.UTC(year, 0, 1)
  const span = Date.UTC(year + 1, 0, 1) - start
  const createdAt: number[] = []
  const amounts: number[] = []
  let seed = 42
  for (let i = 0; i < count; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    createdAt.push(start + Math.floor((i / count) * (span - 60_000)) + (seed % 60_000))
    amounts.push(3000 + (seed % 11) * 500)
  }
  return { createdAt, amounts }
}

/** The server's canonical answer for `count` records spread over `year`, deterministic. */
export function canonicalAnswer(count: number, year: number): Uint8Array {
  const { createdAt, amounts } = records(count, year)
  const parts = createdAt.map(
    (ms, i) => `{"createdAt":"${new Date(ms).toISOString()}","amount":${amounts[i]}}`,
  )
  return new TextEncoder().encode(`{"usages":[${parts.join(',')}]}`)
}

/** The same records as `canonicalAnswer`, in the compact encoding. */
export function compactAnswer(count: number, year: number): Uint8Array {
  const { createdAt, amounts } = records(count, year)
  return encodeUsage(createdAt, amounts)
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
    {
      records: number
      bytes: number
      fastMs: number
      baselineMs: number
      ratio: number
      /** The compact encoding of the same records: its size, and its bucketing time against the fast path's. */
      compactBytes: number
      compactMs: number
      compactRatio: number
    }
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
    const compact = compactAnswer(count, 2026)
    if (JSON.stringify(bucketUsage(compact, 2026, compactUsageType)) !== JSON.stringify(fast))
      throw new Error('the compact answer and the fast path disagree')
    // Warm up both, then take medians.
    medianMs(2, () => bucketUsage(bytes, 2026))
    medianMs(2, () => baseline(bytes, 2026))
    medianMs(2, () => bucketUsage(compact, 2026, compactUsageType))
    const fastMs = medianMs(runs, () => bucketUsage(bytes, 2026))
    const baselineMs = medianMs(runs, () => baseline(bytes, 2026))
    const compactMs = medianMs(runs, () => bucketUsage(compact, 2026, compactUsageType))
    results[name] = {
      records: count,
      bytes: bytes.length,
      fastMs,
      baselineMs,
      ratio: baselineMs / fastMs,
      compactBytes: compact.length,
      compactMs,
      compactRatio: fastMs / compactMs,
    }
  }
  return results
}
