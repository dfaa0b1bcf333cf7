// The 알림톡's delivery reports (docs/product.md §12, decision 251): `sent` means the provider accepted the
// message, not that it reached the phone. Each minute's delivery asks the provider for the final status of
// the accepted messages (their message id kept on the alert) that have none yet, `reportBatch` at most a
// pass, each at most once a minute across instances (an update stamps the rows it asks about, skipping
// those another instance holds), the first time a minute after the send. The answer records `delivered`,
// `deliveredSms` (the provider fell back to SMS and the phone got that) or `undelivered`; no final word
// within `reportGiveUpMs` of the send records `noReport`, and it is not asked again. A query the provider
// refuses or that fails is logged and asked again the next minute.
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../db/client.ts'
import type { MessageTransport } from '../messages/transport.ts'

/** What the pass needs of the 알림톡 channel (message-outbox.ts MessageChannel). */
interface ReportChannel {
  transport: () => Promise<MessageTransport>
  log: { warn(object: object, message: string): void }
}

/** How often one message's report is asked, the first time after its send. */
export const reportAskEveryMs = 60_000
/** How long after the send a report is awaited. */
export const reportGiveUpMs = 24 * 3_600_000
/** Messages asked about in one pass (one request). */
export const reportBatch = 50

export interface ReportsReport {
  asked: number
  delivered: number
  undelivered: number
  noReport: number
}

interface AskedRow {
  id: number | string
  message_id: string
  message_status: string
}

/** Marks as `noReport` what waited too long, then asks the provider about what is due at `now`. */
export async function askReports(db: Db, channel: ReportChannel, now: Date): Promise<ReportsReport> {
  const giveUp = new Date(now.getTime() - reportGiveUpMs).toISOString()
  const gaveUp = await queryRows<{ id: number }>(
    db,
    sql`update alerts set message_report = 'noReport'
        where message_id is not null and message_report is null and message_taken_at < ${giveUp}::timestamptz
        returning id`,
  )
  const report: ReportsReport = { asked: 0, delivered: 0, undelivered: 0, noReport: gaveUp.length }
  const due = new Date(now.getTime() - reportAskEveryMs).toISOString()
  const rows = await queryRows<AskedRow>(
    db,
    sql`update alerts a set message_checked_at = ${now.toISOString()}::timestamptz
        where a.id in (select id from alerts
          where message_id is not null and message_report is null
            and coalesce(message_checked_at, message_taken_at) <= ${due}::timestamptz
          order by message_checked_at nulls first, id limit ${reportBatch} for update skip locked)
        returning a.id, a.message_id, a.message_status`,
  )
  if (rows.length === 0) return report
  report.asked = rows.length
  const transport = await channel.transport()
  const reports = await transport.reports([...new Set(rows.map((row) => row.message_id))])
  if (!(reports instanceof Map)) {
    channel.log.warn(
      { code: reports.code, httpStatus: reports.httpStatus, messages: rows.length },
      'asking the message provider for delivery reports failed; asking again in a minute',
    )
    return report
  }
  for (const row of rows) {
    const answer = reports.get(row.message_id)
    if (!answer || answer.status === 'waiting') continue
    // A 알림톡 (not our own SMS instead) the provider sent on as SMS: delivered, as SMS.
    const value =
      answer.status === 'undelivered'
        ? 'undelivered'
        : row.message_status === 'sent' && answer.channel !== 'alimtalk'
          ? 'deliveredSms'
          : 'delivered'
    await db.execute(
      sql`update alerts set message_report = ${value} where id = ${Number(row.id)} and message_report is null`,
    )
    report[value === 'undelivered' ? 'undelivered' : 'delivered']++
  }
  return report
}
