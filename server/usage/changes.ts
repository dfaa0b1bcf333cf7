// The changes of a store's UTC year since a revision (GET /api/v0/store/{id}/usage/changes), read from
// the log the usages triggers keep (migration 0007, docs/product.md decisions 77–82), and the pruning
// that keeps that log to its last days.
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../db/client.ts'
import { isMemberSql, seesMoneySql } from '../store-access.ts'

/** How long changes are kept (decision 79): a client further behind is told to reset. */
export const changesKeptMs = 3 * 24 * 60 * 60 * 1000

export type ChangesRead =
  /** `hidden`: a member the owner hides won amounts from (the 403 says so, docs/product.md §15). */
  | { member: false; hidden: boolean }
  | { member: true; revision: number; reset: true }
  /** `changes`: the JSON array's items, joined by commas ('' for none). */
  | { member: true; revision: number; reset: false; changes: string; count: number; sum: number }

const changeJson = (op: ReturnType<typeof sql>) =>
  sql`'{"op":"' || ${op} || '","createdAt":"' || to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","amount":' || amount || '}'`

interface Row {
  revision: string | number
  count: string | number
  sum: string | number
  log_from: string | number
  reset: boolean | null
  changes: string | null
}

/**
 * What a member sees of a store's year after revision `after`, in one statement (one snapshot): the
 * revision, the changes above `after` (for `after` = 0 the year's records as puts), and the year's
 * count and sum as of that revision. A reset when `after` is above the revision (a restored database),
 * below what the log keeps, or before a rewrite of the year.
 */
export async function readChanges(
  db: Db,
  userId: number,
  storeId: number,
  year: number,
  after: number,
): Promise<ChangesRead> {
  const items =
    after === 0
      ? sql`select null::boolean as reset, string_agg(${changeJson(sql`'put'`)}, ',' order by created_at, id) as changes
            from usages
            where store_id = ${storeId}
              and created_at >= ${new Date(Date.UTC(year, 0, 1)).toISOString()}
              and created_at < ${new Date(Date.UTC(year + 1, 0, 1)).toISOString()}`
      : sql`select bool_or(op = 'reset') as reset, string_agg(${changeJson(sql`op`)}, ',' order by rev, id) as changes
            from usage_changes
            where store_id = ${storeId} and year = ${year} and rev > ${after}`
  // Membership first, on its own: a caller who is not a member costs one look at the memberships, as a
  // store that does not exist does, so that neither the time taken nor the work done tells them anything
  // of the store (the figures below would be read, then thrown away). The changes are won amounts: a
  // member the owner hides them from is refused as a stranger is (docs/product.md §15).
  const [access] = await queryRows<{ member: boolean; money: boolean }>(
    db,
    sql`select ${isMemberSql(userId, storeId)} as member, ${seesMoneySql(userId, storeId)} as money`,
  )
  if (!access?.money) return { member: false, hidden: access?.member === true }
  const [row] = await queryRows<Row>(
    db,
    sql`select coalesce(y.version, 0) as revision, coalesce(y.record_count, 0) as count,
          coalesce(y.amount_sum, 0) as sum, coalesce(y.log_from, 0) as log_from, c.reset, c.changes
        from (select 1) as one
        left join usage_years y on y.store_id = ${storeId} and y.year = ${year}
        left join lateral (${items}) c on ${after} < coalesce(y.version, 0)`,
  )
  if (!row) throw new Error('the changes statement gave no row')
  const revision = Number(row.revision)
  if (after > revision || (after > 0 && after < Number(row.log_from)) || row.reset)
    return { member: true, revision, reset: true }
  return {
    member: true,
    revision,
    reset: false,
    changes: row.changes ?? '',
    count: Number(row.count),
    sum: Number(row.sum),
  }
}

/** The answer's JSON, built from the parts the database gave (the changes are already JSON). */
export function changesJson(read: Exclude<ChangesRead, { member: false }>): string {
  if (read.reset) return `{"rev":${read.revision},"reset":true}`
  return `{"rev":${read.revision},"changes":[${read.changes}],"count":${read.count},"sum":${read.sum}}`
}

/**
 * Deletes the changes logged before `now - changesKeptMs` and raises each year's `log_from` to the
 * newest revision deleted. One instance at a time (a transaction-scoped advisory lock; the others
 * skip); the rows of usage_years are locked in store and year order, as every writer locks them, so the
 * prune never deadlocks with a writer. Returns the changes deleted, or null when another instance was
 * pruning.
 */
export async function pruneChanges(db: Db, now: Date): Promise<number | null> {
  const cutoff = new Date(now.getTime() - changesKeptMs).toISOString()
  return db.transaction(async (tx) => {
    const [lock] = await queryRows<{ locked: boolean }>(
      tx,
      sql`select pg_try_advisory_xact_lock(hashtext('usage_changes_prune')) as locked`,
    )
    if (!lock?.locked) return null
    const tops = await queryRows<{
      store_id: number
      year: number
      rev: string | number
      n: string | number
    }>(
      tx,
      sql`with gone as (delete from usage_changes where logged_at < ${cutoff} returning store_id, year, rev)
          select store_id, year, max(rev) as rev, count(*) as n from gone group by 1, 2 order by 1, 2`,
    )
    if (tops.length === 0) return 0
    const list = JSON.stringify(tops.map((top) => ({ s: top.store_id, y: top.year, r: Number(top.rev) })))
    const pruned = sql`select * from json_to_recordset(${list}::json) as t(s integer, y integer, r bigint)`
    await tx.execute(
      sql`select 1 from usage_years u join (${pruned}) t on u.store_id = t.s and u.year = t.y
          order by u.store_id, u.year for update of u`,
    )
    await tx.execute(
      sql`update usage_years u set log_from = t.r from (${pruned}) t
          where u.store_id = t.s and u.year = t.y and u.log_from < t.r`,
    )
    return tops.reduce((total, top) => total + Number(top.n), 0)
  })
}
