// A store-year's changes (the changes call, docs/product.md §5), merged into its kept buckets: the device
// keeps no records, so a sale put or removed is added to or taken from the hour, day and month it falls
// in. Each answer says the revision it brings the year to, and the whole year's record count and sum
// after it (a checksum); an answer is merged only onto the revision it was asked after, so a duplicate
// or late delivery changes nothing. Pure: the server can run it too.
import type { UsageChange } from '../contract/api.ts'
import { add, sumHours } from './bucket-add.ts'
import type { Buckets } from './buckets.ts'
import { hourMs, yearStart } from './calendar.ts'

/** One change of a store-year's records: a record put (added) or deleted, as the usage answer's records. */
export type Change = UsageChange

/**
 * The changes call's answer (contract/api.ts `ChangesAnswer`, either form): the changes after the asked
 * revision, or `reset` (fetch the year again).
 */
export interface ChangesAnswer {
  rev: number
  reset?: boolean
  changes?: Change[]
  /** The year's number of records after these changes. */
  count?: number
  /** The year's sum of amounts after these changes. */
  sum?: number
}

/**
 * - buckets: the merged buckets, now of the answer's revision;
 * - `same`: nothing changed since the kept revision (the kept figures are confirmed current);
 * - `stale`: an answer to another question than the kept revision (a duplicate, a late one): ignored;
 * - `refetch`: the kept buckets cannot follow (a reset, a checksum that does not match, the last sale
 *   deleted): fetch the year again.
 */
export type Merged = Buckets | 'same' | 'stale' | 'refetch'

/**
 * Merges an answer to "the changes after revision `after`" into the buckets kept at revision `rev`. A
 * change dated in another year never touches these buckets (the server's count and sum, of this year
 * alone, then say whether it belonged here).
 */
export function mergeChanges(buckets: Buckets, rev: number, after: number, answer: ChangesAnswer): Merged {
  if (answer.reset) return 'refetch'
  if (after !== rev) return 'stale'
  // The server's year went back behind what is kept: it was rewritten.
  if (!(answer.rev >= rev)) return 'refetch'
  const changes = answer.changes ?? []
  // A copy (the kept buckets are the cache's, shared with the screen), changed in place.
  const next = structuredClone(buckets)
  const start = yearStart(buckets.year)
  for (const { op, createdAt, amount } of changes) {
    const at = Date.parse(createdAt)
    if (!Number.isFinite(at) || !Number.isFinite(amount)) return 'refetch'
    if (new Date(at).getUTCFullYear() !== buckets.year) continue
    const sign = op === 'del' ? -1 : 1
    // The latest sale removed: the one before it is unknown without the records (epoch ms: never below 0).
    if (sign < 0 && amount > 0 && at >= (next.lastSaleAt ?? -1)) return 'refetch'
    add(next, Math.floor((at - start) / hourMs), at, amount, sign)
  }
  // The days, months and year from the changed hours, as a bucketing sums them.
  sumHours(next)
  if (
    (answer.count !== undefined && answer.count !== next.records) ||
    (answer.sum !== undefined && answer.sum !== next.total)
  )
    return 'refetch'
  return answer.rev === rev ? 'same' : next
}
