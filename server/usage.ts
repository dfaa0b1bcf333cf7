// The usage answer of one store and UTC year, in either form: the contract's JSON, built as text inside
// the database (one value crosses from the database instead of tens of thousands of rows, with the
// timestamps already in the contract's canonical form), or the compact encoding our app asks for
// (docs/architecture.md, "The compact usage encoding"), built from one ordered scan of the same rows.
// Each is compressed with gzip and brotli and kept in memory until a record of that store and year
// changes: usage_years.version, kept by a trigger, says when. The JSON is compressed twice: fast for the
// first answer, then at the best levels in the background for the answers that follow.
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { brotliCompress, constants, createBrotliCompress, gunzip, gzip } from 'node:zlib'
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import * as canonical from '../contract/usage-bytes.ts'
import { encodeUsage } from '../contract/usage-compact.ts'
import { compactUsageType } from '../contract/usage-compact-type.ts'
import { type Db, queryRows } from './db/client.ts'
import { memberships, usageYears } from './db/schema.ts'

/**
 * The answer's JSON in the canonical byte layout (contract/usage-bytes.md), which the web app's
 * bucketing worker reads without parsing: its fixed pieces come from contract/usage-bytes.ts.
 */
export async function usageJson(db: Db, storeId: number, year: number): Promise<string> {
  const from = new Date(Date.UTC(year, 0, 1))
  const to = new Date(Date.UTC(year + 1, 0, 1))
  const { answerStart, recordStart, recordMiddle, recordEnd, recordSeparator, answerEnd } = canonical
  const [row] = await queryRows<{ records: string }>(
    db,
    sql`select coalesce(string_agg(
          ${recordStart}::text || to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ||
          ${recordMiddle}::text || amount || ${recordEnd}::text, ${recordSeparator}::text order by created_at, id), '') as records
        from usages
        where store_id = ${storeId} and created_at >= ${from.toISOString()} and created_at < ${to.toISOString()}`,
  )
  return `${answerStart}${row?.records ?? ''}${answerEnd}`
}

/** Reads `createdAt ms,amount` pairs joined by `;` (integers, either may be negative) into two columns. */
function parsePairs(text: string, createdAt: number[], amounts: number[]) {
  const end = text.length
  let at = 0
  while (at < end) {
    let negative = text.charCodeAt(at) === 45
    if (negative) at++
    let value = 0
    let code = text.charCodeAt(at)
    while (code >= 48 && code <= 57) {
      value = value * 10 + code - 48
      code = text.charCodeAt(++at)
    }
    if (code !== 44) throw new Error('usage scan: unexpected text')
    createdAt.push(negative ? -value : value)
    negative = text.charCodeAt(++at) === 45
    if (negative) at++
    value = 0
    code = text.charCodeAt(at)
    while (code >= 48 && code <= 57) {
      value = value * 10 + code - 48
      code = text.charCodeAt(++at)
    }
    amounts.push(negative ? -value : value)
    at++ // the `;` (or the end)
  }
}

/**
 * The answer in the compact encoding (contract/usage-compact.ts): one ordered scan of the year's rows,
 * the same rows and order as `usageJson`, crossing from the database as one text value (tens of
 * thousands of rows one by one cost several times more, above all on PGlite).
 */
export async function usageCompact(db: Db, storeId: number, year: number): Promise<Uint8Array> {
  const from = new Date(Date.UTC(year, 0, 1))
  const to = new Date(Date.UTC(year + 1, 0, 1))
  // date_part gives the epoch as a float8 (extract gives a numeric, about 8 ms slower on the busy
  // year). Rounding it is exact: created_at keeps milliseconds (precision 3), so the value is a whole
  // number of milliseconds, and float8's error on it (about 1e-3 ms at today's 1.8e12 ms) is far from 0.5.
  const [row] = await queryRows<{ pairs: string | null }>(
    db,
    sql`select string_agg(round(date_part('epoch', created_at) * 1000)::bigint::text || ',' || amount, ';'
          order by created_at, id) as pairs
        from usages
        where store_id = ${storeId} and created_at >= ${from.toISOString()} and created_at < ${to.toISOString()}`,
  )
  const createdAt: number[] = []
  const amounts: number[] = []
  parsePairs(row?.pairs ?? '', createdAt, amounts)
  return encodeUsage(createdAt, amounts)
}

/** The two forms of a usage answer: the contract's JSON, and the compact encoding of our app. */
export type UsageForm = 'json' | 'compact'

/**
 * Membership and version in one prepared statement (planned once): the only database work a repeated
 * answer or a 304 costs.
 */
function prepareMemberVersion(db: Db) {
  const statement = db
    .select({ version: sql<string | number>`coalesce(${usageYears.version}, 0)` })
    .from(memberships)
    .leftJoin(
      usageYears,
      and(eq(usageYears.storeId, memberships.storeId), eq(usageYears.year, sql.placeholder('year'))),
    )
    .where(
      and(
        eq(memberships.userId, sql.placeholder('userId')),
        eq(memberships.storeId, sql.placeholder('storeId')),
      ),
    )
    .prepare('usage_member_version')
  /** The version of a (store, year) if the user is a member of the store; undefined when not a member. */
  return async (userId: number, storeId: number, year: number) => {
    const [row] = await statement.execute({ userId, storeId, year })
    return row ? Number(row.version) : undefined
  }
}

/** One usage answer, as it is sent: its version, form and ETag, and its body compressed both ways. */
export interface EncodedUsage {
  version: number
  form: UsageForm
  /** Its Content-Type. */
  type: string
  /**
   * Weak, because the bytes differ by encoding; from the form and the content, so every instance
   * agrees and the two forms never share one.
   */
  etag: string
  gzip: Buffer
  brotli: Buffer
  /** Length of the uncompressed body. */
  length: number
}

const gzipAsync = promisify(gzip)
const gunzipAsync = promisify(gunzip)
const brotliAsync = promisify(brotliCompress)

/** The answer's bytes, uncompressed (for a client that accepts neither brotli nor gzip). */
export const uncompressedBody = (answer: EncodedUsage) => gunzipAsync(answer.gzip)

const brotliParams = (quality: number, body: Buffer) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
})

/**
 * How each form is compressed when it is built (bench/README.md has the figures; the busy demo year,
 * 81,107 records, on one core). The JSON is compressed fast so the first answer goes out soon: brotli
 * quality 2 (7.46 bytes a record, 15 ms) and gzip level 1 (8.68, 12 ms), instead of quality 5 (6.73,
 * 56 ms) and level 6 (7.53, 39 ms); `recompressBest` makes the kept answer smaller afterwards. The
 * compact form is a sixteenth of the JSON and its low bytes are random: quality 5 takes 2 ms and is
 * within 1% of quality 11 (2.84 against 2.82 bytes a record, 150 ms), and gzip's levels all give 2.85 in
 * 4 ms, so it is compressed once, at its final levels, and never again.
 */
const firstCompression = {
  json: { brotliQuality: 2, gzipLevel: 1 },
  compact: { brotliQuality: 5, gzipLevel: 6 },
} as const

export const jsonUsageType = 'application/json; charset=utf-8'

/**
 * Builds one answer as the cache does when it does not hold it: query, encoding, hash and the first
 * compression. `bench/usage-build.ts` times this very function.
 */
export async function buildUsageAnswer(
  db: Db,
  storeId: number,
  year: number,
  version: number,
  form: UsageForm,
): Promise<EncodedUsage> {
  const body =
    form === 'json'
      ? Buffer.from(await usageJson(db, storeId, year))
      : Buffer.from(await usageCompact(db, storeId, year))
  const { brotliQuality, gzipLevel } = firstCompression[form]
  const [gzipped, brotli] = await Promise.all([
    gzipAsync(body, { level: gzipLevel }),
    brotliAsync(body, brotliParams(brotliQuality, body)),
  ])
  // The JSON's hash as before (its ETags stay valid); the compact one's names its form too.
  const hash = createHash('sha256')
  if (form === 'compact') hash.update(`${compactUsageType}\n`)
  const tag = hash.update(body).digest('base64url').slice(0, 22)
  return {
    version,
    form,
    type: form === 'json' ? jsonUsageType : compactUsageType,
    etag: `W/"${tag}"`,
    gzip: gzipped,
    brotli,
    length: body.length,
  }
}

/** Whether an answer's form is compressed again in the background (see `firstCompression`). */
export const recompressed = (form: UsageForm) => form === 'json'

/** Brotli is fed this much at a time when recompressing (see `brotliBest`). */
const brotliPiece = 256 * 1024

/**
 * Brotli at quality 11, fed in pieces: each piece is one task on libuv's thread pool (at most about
 * 0.3 s on the busy year's JSON, against 5 s for the whole), and `wanted` is asked before each one, so
 * the work stops soon after it is no longer wanted (a newer version, the server closing). The output is
 * the same as compressing the body in one call: nothing is flushed between pieces.
 */
async function brotliBest(body: Buffer, wanted: () => boolean): Promise<Buffer | undefined> {
  const stream = createBrotliCompress(brotliParams(11, body))
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  // An error reaches the write or end below; without a listener it would also be thrown as an event.
  stream.on('error', () => {})
  try {
    for (let at = 0; at < body.length; at += brotliPiece) {
      if (!wanted()) return undefined
      const piece = body.subarray(at, at + brotliPiece)
      await new Promise<void>((resolve, reject) =>
        stream.write(piece, (error) => (error ? reject(error) : resolve())),
      )
    }
    if (!wanted()) return undefined
    await new Promise<void>((resolve, reject) => {
      stream.once('end', resolve).once('error', reject)
      stream.end()
    })
    return Buffer.concat(chunks)
  } finally {
    stream.destroy()
  }
}

/**
 * The same answer (same body, so the same ETag) compressed at the best levels: gzip level 9 and brotli
 * quality 11. For the busy year's JSON, brotli 5.46 bytes a record instead of the first answer's 7.46
 * (quality 5 gave 6.73) and gzip 7.08 instead of 8.68, at 5 to 7 s of one core. Undefined when `wanted`
 * says no before it is done.
 */
export async function recompressBest(
  answer: EncodedUsage,
  wanted: () => boolean,
): Promise<EncodedUsage | undefined> {
  const body = await uncompressedBody(answer)
  if (!wanted()) return undefined
  const gzipped = await gzipAsync(body, { level: 9 })
  const brotli = await brotliBest(body, wanted)
  if (!brotli) return undefined
  // Whichever is smaller: on a very regular body (a test's hourly records) quality 11 can lose to 2.
  const smaller = (best: Buffer, first: Buffer) => (best.length < first.length ? best : first)
  return { ...answer, gzip: smaller(gzipped, answer.gzip), brotli: smaller(brotli, answer.brotli) }
}

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

  /** The version the database holds now for a store's year (0 before its first record). */
  async function currentVersion(storeId: number, year: number) {
    const [row] = await db
      .select({ version: usageYears.version })
      .from(usageYears)
      .where(and(eq(usageYears.storeId, storeId), eq(usageYears.year, year)))
    return Number(row?.version ?? 0)
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
      // very answer stays kept (not dropped by the LRU, not replaced by a newer version).
      const answer = kept.peek(key)
      const wanted = () => !closed && answer !== undefined && kept.peek(key) === answer
      try {
        if (!answer || !wanted()) return
        // A newer record may have come since (the cache learns of it only when someone asks): the
        // answer would be rebuilt at the next request anyway, so its seconds of compression are skipped.
        if ((await currentVersion(storeId, year)) !== answer.version) return
        const smaller = await recompressBest(answer, wanted)
        // Same version and body, so the same ETag: only the compressed bytes shrink.
        if (smaller && wanted()) {
          kept.set(key, smaller)
          stats.recompressions++
        }
      } catch (error) {
        log?.warn({ err: error }, 'recompressing a usage answer failed')
      }
    })
  }

  /** The answer of a store's year in one form, built at most once per version and form. */
  async function get(
    storeId: number,
    year: number,
    version: number,
    form: UsageForm = 'json',
  ): Promise<EncodedUsage> {
    const key = `${storeId}:${year}:${form}`
    const cached = kept.get(key)
    if (cached?.version === version) return cached
    const buildKey = `${key}:${version}`
    let pending = building.get(buildKey)
    if (!pending) {
      stats.builds++
      pending = buildUsageAnswer(db, storeId, year, version, form).finally(() => building.delete(buildKey))
      building.set(buildKey, pending)
    }
    const answer = await pending
    if ((kept.get(key)?.version ?? -1) < answer.version) {
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
    versionFor: prepareMemberVersion(db),
    stats,
    get,
    settled,

    /** Drops the recompressions still waiting and waits for the running one to stop (the app's onClose). */
    async close() {
      closed = true
      await settled()
    },

    /**
     * Builds ahead, one after another, the compact answers (the form the app asks for) of the `limit`
     * busiest store-years of `years` (the most changed first): after a start, the first owner to ask
     * gets one from memory instead of waiting for a build from a cold database. Returns how many.
     */
    async warm(years: number[], limit = 10): Promise<number> {
      const busiest = await db
        .select({ storeId: usageYears.storeId, year: usageYears.year, version: usageYears.version })
        .from(usageYears)
        .where(inArray(usageYears.year, years))
        .orderBy(desc(usageYears.version))
        .limit(limit)
      for (const { storeId, year, version } of busiest) await get(storeId, year, Number(version), 'compact')
      return busiest.length
    },

    get size() {
      return kept.size
    },
  }
}

export type UsageCache = ReturnType<typeof usageCache>
