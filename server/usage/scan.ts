// The records of one store's UTC year as the database gives them, in either form of the usage answer:
// the contract's JSON, built as text inside the database (one value crosses from the database instead
// of tens of thousands of rows, with the timestamps already in the contract's canonical form), or the
// pairs the compact encoding (docs/architecture.md, "The compact usage encoding") is made from, from one
// ordered scan of the same rows.
import { sql } from 'drizzle-orm'
import * as canonical from '../../contract/usage-bytes.ts'
import { encodeUsage, encodeUsageV2, leadingSums } from '../../contract/usage-compact.ts'
import { type Db, queryRows } from '../db/client.ts'

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
  const { createdAt, amounts } = await usageColumns(db, storeId, year)
  return encodeUsage(createdAt, amounts)
}

/** The answer in the compact encoding's version 2: the year's day sums, then `usageCompact`'s bytes. */
export async function usageCompactV2(db: Db, storeId: number, year: number): Promise<Uint8Array> {
  const { createdAt, amounts } = await usageColumns(db, storeId, year)
  return encodeUsageV2(leadingSums(year, createdAt, amounts), encodeUsage(createdAt, amounts))
}

/** The year's records as two columns, createdAt (ms) and amount, in the order of `usageJson`. */
async function usageColumns(db: Db, storeId: number, year: number) {
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
  return { createdAt, amounts }
}
