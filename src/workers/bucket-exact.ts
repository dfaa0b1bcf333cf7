// The exact path of bucketing (domain/bucketing.ts): a usage answer's JSON in any layout, parsed with
// JSON.parse and every createdAt read exactly with date-fns. Our server's answers never need it (compact,
// or JSON in the canonical layout the fast path reads), so the worker loads this module only for an
// answer that does; `bucketUsage` here buckets any answer at once (tests, benches).
import { isValid, parseISO } from 'date-fns'
import { isCompactUsageType } from '../../contract/usage-compact.ts'
import { add, finish } from '../../domain/bucket-add.ts'
import { asBytes, bucketCompact, scanCanonical } from '../../domain/bucketing.ts'
import { type Buckets, emptyBuckets } from '../../domain/buckets.ts'
import { hourMs } from '../../domain/calendar.ts'

/** Adds records to buckets of one year, reading every createdAt exactly. */
function addRecords(buckets: Buckets, usages: readonly unknown[]): Buckets {
  const { year } = buckets
  const yearStart = Date.UTC(year, 0, 1)
  for (const usage of usages) {
    const record = usage as { createdAt?: unknown; amount?: unknown } | null
    const amount = record?.amount
    const date = typeof record?.createdAt === 'string' ? parseISO(record.createdAt) : null
    if (
      !date ||
      !isValid(date) ||
      date.getUTCFullYear() !== year ||
      typeof amount !== 'number' ||
      !Number.isFinite(amount)
    ) {
      buckets.skipped++
      continue
    }
    const msInYear = date.getTime() - yearStart
    add(buckets, Math.floor(msInYear / hourMs), msInYear, amount)
  }
  return finish(buckets)
}

/** The records of a usage answer, parsed as JSON (any server's, any layout). */
function parseUsages(bytes: Uint8Array): readonly unknown[] {
  const text = new TextDecoder().decode(bytes)
  const answer = (text.trim() ? JSON.parse(text) : {}) as { usages?: unknown }
  return Array.isArray(answer?.usages) ? answer.usages : []
}

/** The exact path: JSON.parse, then every timestamp read exactly. Any server's answer; the reference the fast path must match. */
export function bucketExactly(bytes: ArrayBuffer | Uint8Array, year: number): Buckets {
  return addRecords(emptyBuckets(year), parseUsages(asBytes(bytes)))
}

/**
 * The buckets of one year from the bytes of a usage answer: our compact encoding (version 1; version
 * 2 goes through `usageFeed`) when its Content-Type says so, else JSON `{ "usages": [...] }` (the canonical fast path, or parsed exactly).
 */
export function bucketUsage(
  bytes: ArrayBuffer | Uint8Array,
  year: number,
  contentType?: string | null,
): Buckets {
  const view = asBytes(bytes)
  if (isCompactUsageType(contentType)) return bucketCompact(view, year)
  return scanCanonical(view, year) ?? bucketExactly(view, year)
}
