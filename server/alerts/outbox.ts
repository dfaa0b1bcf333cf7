// Delivery: the alerts recorded `sent` (or released from held) wait in the alerts table itself
// (`push_pending`), and are pushed after the evaluation that recorded them, so that a slow push service
// never holds the minute's evaluation. Whichever instance's update takes a row pushes it: each alert is
// pushed at most once across instances. A taken row is not pushed again (an instance that stops between
// taking and pushing loses it, as a push service that never answers would). A row is pushed only while
// its user still sees what it tells of, checked as it is taken: the store's membership, every store a
// summary names, and the won amounts it names (a removal or hidden money since it was recorded drops it,
// docs/product.md §15).
//
// What is pushed: each alert its own notification; the held alerts of a user released at one instant
// together, one notification for several (`방해 금지 시간 동안의 알림 n개`).
import { sql } from 'drizzle-orm'
import type { AlertKind } from '../../contract/api.ts'
import { pushPayload } from '../../contract/push.ts'
import { heldAlertsAlert } from '../../domain/alert-texts.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'
import type { Push, SendOptions } from '../push/deliver.ts'
import { isMemberSql, seesMoneySql } from '../store-access.ts'

export const alertOptions: SendOptions = { ttlSeconds: 4 * 60 * 60, urgency: 'high' }
export const summaryOptions: SendOptions = { ttlSeconds: 6 * 60 * 60, urgency: 'normal' }
/** Rows taken at once. */
const batch = 500

interface PendingRow {
  id: number
  user_id: number
  store_id: number | null
  kind: AlertKind
  title: string
  body: string
  tag: string
  created_at: Date | string
  sent_at: Date | string
  /** Whether its user still sees what it tells of (below): false drops it unsent. */
  allowed: boolean
}

/** SQL: whether the alert's user still sees what it tells of, read as it is taken (docs/product.md §15). */
const stillSeen = sql`case when alerts.store_id is not null
    then ${isMemberSql(sql`alerts.user_id`, sql`alerts.store_id`)}
  else not exists (select 1 from unnest(alerts.store_ids) as s(id)
      where not ${isMemberSql(sql`alerts.user_id`, sql`s.id`)})
    and not exists (select 1 from unnest(alerts.money_store_ids) as s(id)
      where not ${seesMoneySql(sql`alerts.user_id`, sql`s.id`)})
  end`

export interface DeliveryReport {
  /** Notifications pushed (each to every live subscription of its user). */
  pushes: number
  /** Of them, for held alerts released. */
  releasePushes: number
  /** Alerts taken too late to push: older than the push service would keep them. */
  expired: number
}

/** Takes up to `batch` alerts from the outbox; the rows another instance is taking are skipped. */
async function take(db: Db) {
  const rows = await queryRows<PendingRow>(
    db,
    sql`update alerts set push_pending = false
        where id in (select id from alerts where push_pending order by id limit ${batch} for update skip locked)
        returning id, user_id, store_id, kind, title, body, tag, created_at, sent_at, ${stillSeen} as allowed`,
  )
  const time = (value: Date | string) => new Date(value).getTime()
  return rows
    .map((row) => ({ ...row, id: Number(row.id), user_id: Number(row.user_id), at: time(row.sent_at) }))
    .map((row) => ({ ...row, released: row.at > time(row.created_at), created: time(row.created_at) }))
    .sort(
      (a, b) =>
        a.created - b.created ||
        (a.store_id ?? Number.MAX_SAFE_INTEGER) - (b.store_id ?? Number.MAX_SAFE_INTEGER) ||
        a.kind.localeCompare(b.kind) ||
        a.user_id - b.user_id ||
        a.id - b.id,
    )
}

type Taken = Awaited<ReturnType<typeof take>>[number]

/** What is pushed for the rows taken: one notification each, one for each user's release of an instant. */
function notifications(rows: Taken[]) {
  const fresh = rows.filter((row) => !row.released)
  const releases = new Map<string, Taken[]>()
  for (const row of rows.filter((row) => row.released)) {
    const key = `${row.user_id}|${row.at}`
    releases.set(key, [...(releases.get(key) ?? []), row])
  }
  const one = (row: Taken) => pushPayload({ ...row, storeId: row.store_id && Number(row.store_id) })
  return [
    ...fresh.map((row) => ({
      userId: row.user_id,
      at: row.at,
      payload: one(row),
      options: row.kind === 'morningSummary' ? summaryOptions : alertOptions,
      release: false,
      ids: [row.id],
    })),
    ...[...releases.values()].map((group) => {
      const [first] = group as [Taken, ...Taken[]]
      return {
        userId: first.user_id,
        at: first.at,
        payload:
          group.length === 1
            ? one(first)
            : pushPayload({
                ...heldAlertsAlert(group.map((row) => row.title)),
                tag: `held:${new Date(first.at).toISOString().slice(0, 10)}`,
              }),
        options: alertOptions,
        release: true,
        ids: group.map((row) => row.id),
      }
    }),
  ]
}

const pushStatus = (db: Db, ids: number[], status: 'sent' | 'failed') =>
  db.execute(sql`update alerts set push_status = ${status} where id = any(${intArray(ids)}::bigint[])`)

/** Pushes what is in the outbox, until it is empty (or only holds what other instances are taking). */
export async function deliverAlerts(db: Db, push: Push, now: Date): Promise<DeliveryReport> {
  const report: DeliveryReport = { pushes: 0, releasePushes: 0, expired: 0 }
  for (;;) {
    const rows = await take(db)
    for (const notification of notifications(rows.filter((row) => row.allowed === true))) {
      if (notification.at + notification.options.ttlSeconds * 1000 < now.getTime()) {
        report.expired++
        await pushStatus(db, notification.ids, 'failed')
        continue
      }
      const sent = await push.sendToUser(notification.userId, notification.payload, notification.options)
      // Delivered when a push service took it for one browser at least (decision 233).
      await pushStatus(db, notification.ids, sent.sent > 0 ? 'sent' : 'failed')
      report.pushes++
      if (notification.release) report.releasePushes++
    }
    if (rows.length < batch) return report
  }
}
