// The alerts, sent or held (docs/product.md decision 93). The rules that raise them (a quiet store, a
// device offline, the morning summary) come later (issue 24, part 2); this is what they raise through.
// `raiseAlert` records the alert with an insert that does nothing when its key (user, store, kind,
// episode) exists: of several instances that compute the same alert, exactly one gets the row back,
// and only that one pushes it. An alert due inside the user's quiet hours is held (in the list only).
import { type AnyColumn, and, asc, desc, eq, gt, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { Alert, AlertKind } from '../../contract/api.ts'
import type { Db } from '../db/client.ts'
import { alerts, memberships } from '../db/schema.ts'
import type { Push, SendOptions } from './deliver.ts'

/** How long an alert stays in the list. */
export const alertsKeptMs = 30 * 24 * 60 * 60_000
const listed = 100

export interface NewAlert {
  userId: number
  storeId: number | null
  /** The stores a summary names (its storeId is null): listed and released only while the user sees them all. */
  storeIds?: number[] | null
  kind: AlertKind
  episode: string
  title: string
  body: string
  tag: string
}

/**
 * Records the alert once and pushes it unless `held`; undefined when it was already recorded (by this
 * instance or another), in which case nothing is sent.
 */
export async function raiseAlert(
  db: Db,
  push: Push,
  alert: NewAlert,
  { held, at, send }: { held: boolean; at: Date; send: SendOptions },
) {
  const [row] = await db
    .insert(alerts)
    .values({ ...alert, state: held ? 'held' : 'sent', createdAt: at, sentAt: held ? null : at })
    .onConflictDoNothing()
    .returning({ id: alerts.id })
  if (!row) return undefined
  if (held) return { id: row.id, report: undefined }
  const report = await push.sendToUser(
    alert.userId,
    {
      title: alert.title,
      body: alert.body,
      tag: alert.tag,
      ...(alert.storeId ? { store: alert.storeId } : {}),
    },
    send,
  )
  return { id: row.id, report }
}

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
