// The user's alerts, sent and held, as the alerts screen lists them (docs/product.md decision 93).
import { and, asc, desc, eq, gt, isNull, or, sql } from 'drizzle-orm'
import type { AlertDelivery, StoreMessageCounts } from '../../contract/alert-channels.ts'
import type { Alert } from '../../contract/api.ts'
import { type Db, queryRows } from '../db/client.ts'
import { alerts } from '../db/schema.ts'
import { everyMembershipSql, isMemberSql, seesMoneySql } from '../store-access.ts'

/** How long an alert stays in the list. */
export const alertsKeptMs = 30 * 24 * 60 * 60_000
const listed = 100

/**
 * The user's alerts of the last 30 days, newest first (at most 100), of stores they still see: an
 * alert of one store while they are its member, a summary while they are a member of every store it
 * names (decision 155), and whose won amounts it names while they still see those (docs/product.md §15).
 */
export async function alertsOf(db: Db, userId: number, now: Date): Promise<Alert[]> {
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
            sql`not exists (select 1 from unnest(${alerts.storeIds}) as s(id) where not ${isMemberSql(userId, sql`s.id`)})`,
            sql`not exists (select 1 from unnest(${alerts.moneyStoreIds}) as s(id) where not ${seesMoneySql(userId, sql`s.id`)})`,
          ),
          isMemberSql(userId, alerts.storeId),
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
    deliveries: deliveriesOf(row),
  }))
}

type Row = typeof alerts.$inferSelect

/** How the alert went out by each channel chosen for it (decision 233). */
function deliveriesOf(row: Row): AlertDelivery[] {
  const deliveries: AlertDelivery[] = []
  if (row.byPush)
    deliveries.push({
      channel: 'push',
      // A row pushed before the push's status was kept: pushed (taken from the outbox).
      status: row.pushStatus ?? (row.state === 'sent' && !row.pushPending ? 'sent' : 'pending'),
    })
  if (row.byKakao) {
    const status = row.messageStatus
    deliveries.push({
      channel: 'kakao',
      status: status === null || status === 'taken' || status === 'sending' ? 'pending' : status,
      ...(row.messageReport ? { report: row.messageReport } : {}),
    })
  }
  return deliveries
}

/** The first instant of the Korean month of `now`. */
export function koreanMonthStart(now: Date) {
  const korea = new Date(now.getTime() + 9 * 3_600_000)
  const start = Date.UTC(korea.getUTCFullYear(), korea.getUTCMonth(), 1) - 9 * 3_600_000
  return { start: new Date(start), month: korea.toISOString().slice(0, 7) }
}

/**
 * This month's messages by channel of each store the user owns, to every member (decision 235): what
 * the alerts cost. A summary counts under the first store it names.
 */
export async function messageCountsOf(db: Db, userId: number, now: Date): Promise<StoreMessageCounts[]> {
  const { start, month } = koreanMonthStart(now)
  const rows = await queryRows<{ store_id: number; push: string; kakao: string; sms: string }>(
    db,
    sql`select m.store_id,
          count(a.id) filter (where a.push_status = 'sent') as push,
          count(a.id) filter (where a.message_status = 'sent' and a.message_report is distinct from 'deliveredSms') as kakao,
          count(a.id) filter (where a.message_status = 'fallbackSms' or a.message_report = 'deliveredSms') as sms
        from ${everyMembershipSql} m
        left join alerts a on coalesce(a.store_id, a.store_ids[1]) = m.store_id
          and a.sent_at >= ${start.toISOString()}::timestamptz
        where m.user_id = ${userId} and m.role = 'owner'
        group by m.store_id order by m.store_id`,
  )
  return rows.map((row) => ({
    storeId: Number(row.store_id),
    month,
    push: Number(row.push),
    kakao: Number(row.kakao),
    sms: Number(row.sms),
  }))
}
