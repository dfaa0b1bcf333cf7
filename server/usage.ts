// The usage answer of one store and UTC year. It is built as JSON text inside the database (one
// value crosses from the database instead of tens of thousands of rows, with the timestamps already
// in the contract's canonical form), compressed once with gzip and brotli, and kept in memory until a
// record of that store and year changes: usage_years.version, kept by a trigger, says when.
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { brotliCompress, constants, gunzip, gzip } from 'node:zlib'
import { and, eq, sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import * as canonical from '../contract/usage-bytes.ts'
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

/** One usage answer, as it is sent: its version and ETag, and its JSON compressed both ways. */
export interface EncodedUsage {
  version: number
  /** Weak, because the bytes differ by encoding; from the content, so every instance agrees. */
  etag: string
  gzip: Buffer
  brotli: Buffer
  /** Length of the uncompressed JSON. */
  length: number
}

const gzipAsync = promisify(gzip)
const gunzipAsync = promisify(gunzip)
const brotliAsync = promisify(brotliCompress)

async function build(db: Db, storeId: number, year: number, version: number): Promise<EncodedUsage> {
  const json = Buffer.from(await usageJson(db, storeId, year))
  // Level 6 and quality 5: about 7.5 and 6.7 bytes a record in a tenth of a second each (level 9 and
  // quality 11 save a little more and cost seconds).
  const [gzipped, brotli] = await Promise.all([
    gzipAsync(json, { level: 6 }),
    brotliAsync(json, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
    }),
  ])
  const hash = createHash('sha256').update(json).digest('base64url').slice(0, 22)
  return { version, etag: `W/"${hash}"`, gzip: gzipped, brotli, length: json.length }
}

/** The answer's JSON bytes, uncompressed (for a client that accepts neither brotli nor gzip). */
export const uncompressedBody = (answer: EncodedUsage) => gunzipAsync(answer.gzip)

/**
 * Answers kept in memory, at most `maxBytes` of compressed data, least recently used dropped first.
 * Concurrent requests for an answer being built wait for that one build.
 */
export function usageCache(db: Db, maxBytes = 64 * 1024 * 1024) {
  const kept = new LRUCache<string, EncodedUsage>({
    maxSize: maxBytes,
    sizeCalculation: (answer) => answer.gzip.length + answer.brotli.length,
  })
  const building = new Map<string, Promise<EncodedUsage>>()
  const stats = { builds: 0 }

  return {
    versionFor: prepareMemberVersion(db),
    stats,

    async get(storeId: number, year: number, version: number): Promise<EncodedUsage> {
      const key = `${storeId}:${year}`
      const cached = kept.get(key)
      if (cached?.version === version) return cached
      const buildKey = `${key}:${version}`
      let pending = building.get(buildKey)
      if (!pending) {
        stats.builds++
        pending = build(db, storeId, year, version).finally(() => building.delete(buildKey))
        building.set(buildKey, pending)
      }
      const answer = await pending
      if ((kept.get(key)?.version ?? -1) < answer.version) kept.set(key, answer)
      return answer
    },
    get size() {
      return kept.size
    },
  }
}

export type UsageCache = ReturnType<typeof usageCache>
