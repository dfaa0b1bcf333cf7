// Buckets a usage answer as it streams, by messages: the worker's side of bucketing (bucket.worker.ts)
// and the main thread's where no worker runs (bucket-client.ts). The bucketing itself (the canonical
// JSON fast path and the compact encoding) is domain/bucketing.ts, which the server runs too; the exact
// path for JSON in another layout (bucket-exact.ts) is loaded only for such an answer.
import { isCompactUsageType, isCompactUsageTypeV2, leadingReader } from '../../contract/usage-compact.ts'
import { bucketCompact, leadingBuckets, scanCanonical } from '../../domain/bucketing.ts'
import type { Buckets } from '../../domain/buckets.ts'

/**
 * Buckets a usage answer as its bytes arrive (`push` each piece, `end` once the body is complete). For a
 * version 2 answer, `onLeading` gets the buckets of its leading sums as soon as they have arrived (read
 * from each piece as it comes, with no copy); at the end its records are bucketed, and they win: where
 * their days differ from the leading sums, the two year totals are reported with console.error. Any
 * other answer is bucketed at the end, as `bucketUsage` (bucket-exact.ts) does, its exact path loaded
 * on demand.
 */
export function usageFeed(year: number, contentType: string | null, onLeading: (leading: Buckets) => void) {
  /** The pieces of the records (of a version 2 answer, those after the leading sums). */
  const pieces: Uint8Array[] = []
  const read = isCompactUsageTypeV2(contentType) && leadingReader(year)
  let leading: Buckets | undefined
  /** A year's days and their sales, as one string. */
  const daysOf = (b: Buckets | undefined) => `${[b?.days, b?.dayCounts]}`
  return {
    push(piece: Uint8Array) {
      if (read && !leading) {
        const lead = read(piece)
        if (!lead) return
        leading = leadingBuckets(lead.sums)
        onLeading(leading)
        piece = piece.subarray(lead.recordsAt)
      }
      pieces.push(piece)
    },
    end(): Buckets | Promise<Buckets> {
      const bytes = new Uint8Array(pieces.reduce((length, piece) => length + piece.length, 0))
      let at = 0
      for (const piece of pieces) {
        bytes.set(piece, at)
        at += piece.length
      }
      if (!read)
        return isCompactUsageType(contentType)
          ? bucketCompact(bytes, year)
          : (scanCanonical(bytes, year) ??
              import('./bucket-exact.ts').then((exact) => exact.bucketExactly(bytes, year)))
      // An answer that ends within its leading sums has no records here: malformed, bucketCompact throws.
      const buckets = bucketCompact(bytes, year)
      // A defect of the server's, reported here (in the worker, its console is the page's).
      if (daysOf(buckets) !== daysOf(leading))
        console.error(new Error(`usage: leading sums ≠ records (${leading?.total} ≠ ${buckets.total})`))
      return buckets
    },
  }
}

/**
 * A usage answer's start (its year, and its Content-Type: JSON or the compact encoding), then each
 * piece of its body, then its end (`end: false` when the body failed: the answer is dropped, with no
 * reply).
 */
export type BucketRequest =
  | { id: number; year: number; contentType: string | null }
  | { id: number; piece: Uint8Array }
  | { id: number; end: boolean }

/** For a version 2 compact answer the buckets of its leading sums first, then those of the whole answer. */
export type BucketReply =
  | { id: number; leading: Buckets }
  | { id: number; buckets: Buckets }
  | { id: number; error: string }

/**
 * The bucketing of usage answers by messages, as the worker does it (bucket.worker.ts) and the main
 * thread where no worker runs (bucket-client.ts): several answers at once, each by its id, a `usageFeed`
 * each; every reply goes to `reply`.
 */
export function bucketing(reply: (message: BucketReply) => void) {
  const feeds = new Map<number, ReturnType<typeof usageFeed>>()
  return async (data: BucketRequest) => {
    const { id } = data
    const feed = feeds.get(id)
    try {
      if ('year' in data)
        feeds.set(
          id,
          usageFeed(data.year, data.contentType, (leading) => reply({ id, leading })),
        )
      else if ('piece' in data) feed?.push(data.piece)
      else if (feeds.delete(id) && data.end && feed) reply({ id, buckets: await feed.end() })
    } catch (error) {
      feeds.delete(id)
      reply({ id, error: String(error instanceof Error ? error.message : error) })
    }
  }
}
