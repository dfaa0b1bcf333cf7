// The usage answer of one store and UTC year, in either form: the contract's JSON, built as text inside
// the database (one value crosses from the database instead of tens of thousands of rows, with the
// timestamps already in the contract's canonical form), or the compact encoding our app asks for
// (docs/architecture.md, "The compact usage encoding"), built from one ordered scan of the same rows.
// Each is compressed once with gzip and brotli and kept in memory until a record of that store and year
// changes: usage_years.version, kept by a trigger, says when.
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { brotliCompress, constants, gunzip, gzip } from 'node:zlib'
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
  const [row] = await queryRows<{ pairs: string | null }>(
    db,
    sql`select string_agg((extract(epoch from created_at) * 1000)::bigint::text || ',' || amount, ';'
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

export const jsonUsageType = 'application/json; charset=utf-8'

async function build(
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
  // Level 6 and quality 5: for JSON about 7.5 and 6.7 bytes a record in a tenth of a second each
  // (level 9 and quality 11 save a little more and cost seconds); the compact form is a sixteenth of
  // the JSON and takes a few milliseconds, within 1% of quality 11 (its low bytes are random).
  const [gzipped, brotli] = await Promise.all([
    gzipAsync(body, { level: 6 }),
    brotliAsync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
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

/** The answer's bytes, uncompressed (for a client that accepts neither brotli nor gzip). */
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
      pending = build(db, storeId, year, version, form).finally(() => building.delete(buildKey))
      building.set(buildKey, pending)
    }
    const answer = await pending
    if ((kept.get(key)?.version ?? -1) < answer.version) kept.set(key, answer)
    return answer
  }

  return {
    versionFor: prepareMemberVersion(db),
    stats,
    get,

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
