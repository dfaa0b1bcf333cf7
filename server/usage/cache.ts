// Usage answers kept in memory until a record of their store and year changes (usage_years.version,
// kept by a trigger, says when), with the queue that recompresses the JSON answers in the background.
import { and, desc, eq, inArray } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import type { Db } from '../db/client.ts'
import { usageYears } from '../db/schema.ts'
import {
  buildUsageAnswer,
  type EncodedUsage,
  recompressBest,
  recompressed,
  type UsageForm,
} from './answer.ts'

/** Where the cache reports what went wrong in the background (the app's logger). */
interface UsageCacheLog {
  warn(details: object, message: string): void
}

/**
 * Answers kept in memory, at most `maxBytes` of compressed data, least recently used dropped first.
 * Concurrent requests for an answer being built wait for that one build. A JSON answer, kept after its
 * fast first compression, is recompressed at the best levels in the background.
 */
export function usageCache(
  db: Db,
  { maxBytes = 64 * 1024 * 1024, log }: { maxBytes?: number; log?: UsageCacheLog } = {},
) {
  const kept = new LRUCache<string, EncodedUsage>({
    maxSize: maxBytes,
    sizeCalculation: (answer) => answer.gzip.length + answer.brotli.length,
  })
  const building = new Map<string, Promise<EncodedUsage>>()
  /** Answers built, and answers recompressed and kept in place of their first compression. */
  const stats = { builds: 0, recompressions: 0 }

  /** The revision the database holds now for a store's year (0 before its first record). */
  async function currentRevision(storeId: number, year: number) {
    const [row] = await db
      .select({ revision: usageYears.version })
      .from(usageYears)
      .where(and(eq(usageYears.storeId, storeId), eq(usageYears.year, year)))
    return Number(row?.revision ?? 0)
  }

  // The background recompressions, one at a time (a chain of promises), so they never take more than
  // one core: a request's build can always have the other. A waiting turn holds only its key (never
  // the answer's bytes, which the cache may drop meanwhile), one per key, at most `maxWaiting`: a
  // client sweeping many years cannot line up minutes of work. `closed` drops the ones still waiting
  // and stops the running one at its next piece.
  let queue: Promise<void> = Promise.resolve()
  const waiting = new Set<string>()
  const maxWaiting = 32
  let closed = false

  function recompressLater(key: string, storeId: number, year: number) {
    if (waiting.has(key) || waiting.size >= maxWaiting) return
    waiting.add(key)
    queue = queue.then(async () => {
      waiting.delete(key)
      // The answer kept for the key when its turn comes: still worth it while the server runs and that
      // very answer stays kept (not dropped by the LRU, not replaced by a newer revision).
      const answer = kept.peek(key)
      const wanted = () => !closed && answer !== undefined && kept.peek(key) === answer
      try {
        if (!answer || !wanted()) return
        // A newer record may have come since (the cache learns of it only when someone asks): the
        // answer would be rebuilt at the next request anyway, so its seconds of compression are skipped.
        if ((await currentRevision(storeId, year)) !== answer.revision) return
        const smaller = await recompressBest(answer, wanted)
        // Same revision and body, so the same ETag: only the compressed bytes shrink.
        if (smaller && wanted()) {
          kept.set(key, smaller)
          stats.recompressions++
        }
      } catch (error) {
        log?.warn({ err: error }, 'recompressing a usage answer failed')
      }
    })
  }

  /** The answer of a store's year in one form, built at most once per revision and form. */
  async function get(
    storeId: number,
    year: number,
    revision: number,
    form: UsageForm = 'json',
  ): Promise<EncodedUsage> {
    const key = `${storeId}:${year}:${form}`
    const cached = kept.get(key)
    if (cached?.revision === revision) return cached
    const buildKey = `${key}:${revision}`
    let pending = building.get(buildKey)
    if (!pending) {
      stats.builds++
      pending = buildUsageAnswer(db, storeId, year, revision, form).finally(() => building.delete(buildKey))
      building.set(buildKey, pending)
    }
    const answer = await pending
    if ((kept.get(key)?.revision ?? -1) < answer.revision) {
      kept.set(key, answer)
      if (recompressed(form)) recompressLater(key, storeId, year)
    }
    return answer
  }

  /** Resolves once no recompression is running or waiting (including ones queued meanwhile). */
  async function settled() {
    let seen: Promise<void>
    do {
      seen = queue
      await seen
    } while (seen !== queue)
  }

  return {
    stats,
    get,
    settled,

    /** Drops the recompressions still waiting and waits for the running one to stop (the app's onClose). */
    async close() {
      closed = true
      await settled()
    },

    /**
     * Builds ahead, one after another, the compact answers of version 2 (the form the app asks for) of the `limit`
     * busiest store-years of `years` (the most changed first): after a start, the first owner to ask
     * gets one from memory instead of waiting for a build from a cold database. Returns how many.
     */
    async warm(years: number[], limit = 10): Promise<number> {
      const busiest = await db
        .select({ storeId: usageYears.storeId, year: usageYears.year, revision: usageYears.version })
        .from(usageYears)
        .where(inArray(usageYears.year, years))
        .orderBy(desc(usageYears.version))
        .limit(limit)
      for (const { storeId, year, revision } of busiest)
        await get(storeId, year, Number(revision), 'compact2')
      return busiest.length
    },

    get size() {
      return kept.size
    },
  }
}

export type UsageCache = ReturnType<typeof usageCache>
