// The usage answer of one store and UTC year, built as JSON text inside the database: one value crosses
// from the database instead of tens of thousands of rows, and the timestamps come out already in the
// contract's canonical form (ISO 8601, milliseconds, Z).
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from './db/client.ts'

export async function usageJson(db: Db, storeId: number, year: number): Promise<string> {
  const from = new Date(Date.UTC(year, 0, 1))
  const to = new Date(Date.UTC(year + 1, 0, 1))
  const [row] = await queryRows<{ records: string }>(
    db,
    sql`select coalesce(string_agg(
          '{"createdAt":"' || to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ||
          '","amount":' || amount || '}', ',' order by created_at, id), '') as records
        from usages
        where store_id = ${storeId} and created_at >= ${from.toISOString()} and created_at < ${to.toISOString()}`,
  )
  return `{"usages":[${row?.records ?? ''}]}`
}

/** The version of a (store, year) if the user is a member of the store; undefined when not a member. */
export async function memberVersion(db: Db, userId: number, storeId: number, year: number) {
  const [row] = await queryRows<{ version: string | number }>(
    db,
    sql`select coalesce(v.version, 0) as version
        from memberships m
        left join usage_years v on v.store_id = m.store_id and v.year = ${year}
        where m.user_id = ${userId} and m.store_id = ${storeId}`,
  )
  return row ? Number(row.version) : undefined
}
