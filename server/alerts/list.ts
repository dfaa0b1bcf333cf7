// The user's alerts, sent and held, as the alerts screen lists them (docs/product.md decision 93).
import { type AnyColumn, and, asc, desc, eq, gt, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { Alert } from '../../contract/api.ts'
import type { Db } from '../db/client.ts'
import { alerts, memberships } from '../db/schema.ts'

/** How long an alert stays in the list. */
export const alertsKeptMs = 30 * 24 * 60 * 60_000
const listed = 100

/**
 * The user's alerts of the last 30 days, newest first (at most 100), of stores they still see: an
 * alert of one store while they are its member, a summary while they are a member of every store it
 * names (decision 155).
 */
export async function alertsOf(db: Db, userId: number, now: Date): Promise<Alert[]> {
  const member = (storeId: SQL | AnyColumn) =>
    sql`exists (select 1 from ${memberships} m where m.user_id = ${userId} and m.store_id = ${storeId})`
  const rows = await db
    .select()
    .from(alerts)
    .where(
      and(
        eq(alerts.userId, userId),
        gt(alerts.createdAt, new Date(now.getTime() - alertsKeptMs)),
        or(
          and(
            isNull(alerts.storeId),
            sql`not exists (select 1 from unnest(${alerts.storeIds}) as s(id) where not ${member(sql`s.id`)})`,
          ),
          member(alerts.storeId),
        ),
      ),
    )
    // Newest first; alerts of the same instant by kind, then store (ids are random: decision 161).
    .orderBy(desc(alerts.createdAt), asc(alerts.kind), asc(alerts.storeId), asc(alerts.episode))
    .limit(listed)
  return rows.map((row) => ({
    id: row.id,
    storeId: row.storeId,
    kind: row.kind,
    title: row.title,
    body: row.body,
    state: row.state,
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt ? row.sentAt.toISOString() : null,
  }))
}
