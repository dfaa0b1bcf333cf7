// The 알림톡 channel (docs/product.md §12, decisions 231–234): the alerts recorded for it wait in the
// alerts table (`message_pending`), as the pushes do, and go after the evaluation that recorded them.
// Whichever instance's update takes a row sends it (`skip locked`): one 알림톡 an alert across
// instances. Each goes by its kind's template (`KAKAO_TEMPLATE_<KIND>`) with the alert's own title and
// text, to the person's own number; refused or undelivered, as SMS/LMS when the person allowed it. A
// person gets at most `perUserPerDay` 알림톡 and SMS a day (00:00 UTC, as the caps): beyond, the
// alert is `capped`, in the list only; that count is taken under the person's advisory lock, so two
// instances never both send the last one. A 5xx or no answer is tried again with backoff; a refusal is
// not; both are logged once and kept for `npm run admin -- messages`. Each pass first sweeps what a
// stopped instance left in flight (message-sweep.ts, decision 250) and ends asking the provider for the
// reports of what it accepted (message-reports.ts, decision 251); the message's id is kept for that.
import { sql } from 'drizzle-orm'
import type { AlertKind } from '../../contract/api.ts'
import { backoff } from '../../domain/backoff.ts'
import { startOfDay } from '../../domain/calendar.ts'
import { type Db, queryRows } from '../db/client.ts'
import { recordMessageFailure } from '../messages/failures.ts'
import type { MessageTransport, SendOutcome } from '../messages/transport.ts'
import { askReports, type ReportsReport } from './message-reports.ts'
import { type SweepReport, sweepInFlight } from './message-sweep.ts'
import { alertOptions, summaryOptions } from './outbox.ts'

export interface MessageChannel {
  /** The transport, made when first needed. */
  transport: () => Promise<MessageTransport>
  /** Each kind's approved template. */
  templates: Partial<Record<AlertKind, string>>
  /** 알림톡 and SMS a person gets a day. */
  perUserPerDay: number
  log: { error(object: object, message: string): void; warn(object: object, message: string): void }
  /** Tries in all for a 5xx or no answer, and the first wait (doubling). */
  retry?: { attempts: number; firstDelayMs: number }
}

export interface MessageReport {
  sent: number
  fallbackSms: number
  failed: number
  capped: number
  /** What a stopped instance left in flight (decision 250). */
  swept?: SweepReport
  /** The provider's reports asked and recorded (decision 251). */
  reports?: ReportsReport
}

const batch = 100
const defaultRetry = { attempts: 3, firstDelayMs: 2000 }

interface TakenRow {
  id: number
  user_id: number
  kind: AlertKind
  title: string
  body: string
  sent_at: Date | string
  phone: string
  sms_fallback: boolean
}

/**
 * Takes up to `batch` alerts from the 알림톡 outbox at `now` (kept with each: the sweep's clock, and the
 * mark that it is still this take's); the rows another instance is taking are skipped.
 */
function take(db: Db, now: Date) {
  return queryRows<TakenRow>(
    db,
    sql`update alerts a set message_pending = false, message_status = 'taken', message_taken_at = ${now.toISOString()}::timestamptz
        where a.id in (select id from alerts where message_pending order by id limit ${batch} for update skip locked)
        returning a.id, a.user_id, a.kind, a.title, a.body, a.sent_at,
          (select u.phone from users u where u.id = a.user_id) as phone,
          coalesce((select s.sms_fallback from alert_settings s where s.user_id = a.user_id
            and s.store_id = coalesce(a.store_id, a.store_ids[1])), true) as sms_fallback`,
  )
}

/**
 * Whether the person may get one more message today: the row becomes `sending` (its send begins at `now`),
 * else `capped`; `lost` when the row is no longer this take's (swept back to the outbox while this
 * instance was slow, and maybe taken again elsewhere: it leaves it be).
 */
async function withinCap(db: Db, row: TakenRow, perDay: number, now: Date) {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(25, ${row.user_id})`)
    const [ours] = await queryRows<{ id: number }>(
      tx,
      sql`select id from alerts where id = ${row.id} and message_status = 'taken'
            and message_taken_at = ${now.toISOString()}::timestamptz for update`,
    )
    if (!ours) return 'lost'
    const dayStart = new Date(startOfDay(now.getTime())).toISOString()
    const [count] = await queryRows<{ n: string | number }>(
      tx,
      sql`select count(*) as n from alerts where user_id = ${row.user_id}
            and message_status in ('sending', 'sent', 'fallbackSms', 'unknown') and sent_at >= ${dayStart}::timestamptz`,
    )
    const within = Number(count?.n ?? 0) < perDay
    await tx.execute(
      sql`update alerts set message_status = ${within ? 'sending' : 'capped'}, message_taken_at = ${now.toISOString()}::timestamptz
          where id = ${row.id}`,
    )
    return within ? 'sending' : 'capped'
  })
}

/** A send's outcome, and the provider's message id when it took it; also over an `unknown` the sweep set meanwhile. */
const setStatus = (db: Db, id: number, status: 'sent' | 'fallbackSms' | 'failed', messageId?: string) =>
  db.execute(
    sql`update alerts set message_status = ${status}, message_id = ${messageId ?? null}
        where id = ${id} and message_status in ('sending', 'unknown')`,
  )

/** Sends one alert's 알림톡, trying a failure again with backoff; answers the outcome and the tries. */
async function send(channel: MessageChannel, row: TakenRow, templateId: string) {
  const transport = await channel.transport()
  const retry = channel.retry ?? defaultRetry
  const text = `${row.title}\n${row.body}`
  for (let attempt = 1; ; attempt++) {
    const outcome: SendOutcome = await transport.alimtalk(
      row.phone,
      templateId,
      { title: row.title, text: row.body },
      { smsFallback: row.sms_fallback, fallbackText: text },
    )
    if (outcome.status !== 'failed' || attempt >= retry.attempts) return { outcome, attempt }
    channel.log.warn({ alert: row.id, code: outcome.code, attempt }, 'a 알림톡 failed; trying again')
    await new Promise((resolve) => setTimeout(resolve, backoff(attempt - 1, { firstMs: retry.firstDelayMs })))
  }
}

/** Sends what the 알림톡 outbox holds, until it is empty (or only holds what other instances are taking). */
export async function deliverMessages(db: Db, channel: MessageChannel, now: Date): Promise<MessageReport> {
  const report: MessageReport = { sent: 0, fallbackSms: 0, failed: 0, capped: 0 }
  report.swept = await sweepInFlight(db, now)
  if (report.swept.retaken + report.swept.unknown > 0)
    channel.log.warn({ ...report.swept }, 'an instance stopped while sending 알림톡: its rows swept')
  for (;;) {
    const rows = (await take(db, now)).map((row) => ({
      ...row,
      id: Number(row.id),
      user_id: Number(row.user_id),
    }))
    for (const row of rows) {
      const lifetime = (row.kind === 'morningSummary' ? summaryOptions : alertOptions).ttlSeconds * 1000
      const templateId = channel.templates[row.kind]
      // Taken too late to say (as a push would be), or its template removed since it was recorded.
      if (new Date(row.sent_at).getTime() + lifetime < now.getTime() || !templateId) {
        await db.execute(
          sql`update alerts set message_status = 'failed' where id = ${row.id} and message_status = 'taken'
                and message_taken_at = ${now.toISOString()}::timestamptz`,
        )
        report.failed++
        continue
      }
      const cap = await withinCap(db, row, channel.perUserPerDay, now)
      if (cap !== 'sending') {
        if (cap === 'capped') report.capped++
        continue
      }
      const { outcome, attempt } = await send(channel, row, templateId)
      if (outcome.status === 'sent') {
        const status = outcome.fellBackFrom ? 'fallbackSms' : 'sent'
        await setStatus(db, row.id, status, outcome.messageId)
        report[status]++
      } else {
        await setStatus(db, row.id, 'failed')
        report.failed++
        await recordMessageFailure(db, channel.log, {
          purpose: row.kind,
          to: row.phone,
          outcome,
          attempts: attempt,
          at: now,
        })
      }
    }
    if (rows.length < batch) break
  }
  report.reports = await askReports(db, channel, now)
  return report
}
