// The tables of the message transport (server/messages/), and the alerts' columns of the 알림톡, apart
// from schema.ts, which is at its size limit; drizzle-kit reads both (drizzle.config.ts).
import { bigint, boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/** The alerts' columns of the 알림톡 (schema.ts `alerts`; server/alerts/message-outbox.ts). */
export const alertMessageColumns = {
  /** The 알림톡's outbox, apart from the push's. */
  messagePending: boolean('message_pending').notNull().default(false),
  /**
   * `taken`, `sending`, then `sent`, `fallbackSms`, `failed`, `capped` (decision 233), or `unknown`: its
   * sending instance stopped mid-send, so it may have reached the provider and is never sent again (250).
   */
  messageStatus: text('message_status', {
    enum: ['taken', 'sending', 'sent', 'fallbackSms', 'failed', 'capped', 'unknown'],
  }),
  /** When the row was taken, then when its send began: a stopped instance's row is swept after a bound (250). */
  messageTakenAt: timestamp('message_taken_at', { withTimezone: true, mode: 'date' }),
  /** The provider's id of the message it accepted (the 알림톡, or our own SMS fallback), to ask its report. */
  messageId: text('message_id'),
  /** When an instance last asked the provider for its report: once a minute across instances (251). */
  messageCheckedAt: timestamp('message_checked_at', { withTimezone: true, mode: 'date' }),
  /**
   * The provider's final report (decision 251): `delivered`, `deliveredSms` (the provider fell back to
   * SMS and the phone got that), `undelivered`, or `noReport` (none final within 24 h); null until then.
   */
  messageReport: text('message_report', { enum: ['delivered', 'deliveredSms', 'undelivered', 'noReport'] }),
}

/**
 * Messages the provider (SOLAPI) refused or that failed for good: a sign-in code's SMS, later an
 * alert's 알림톡 or SMS. One row a message, for `npm run admin -- messages`; the number is masked (last
 * four digits) and the text is never kept. Rows older than 90 days go at the next failure.
 */
export const messageFailures = pgTable(
  'message_failures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
    /** What it carried: `signIn`, or an alert kind. */
    purpose: text('purpose').notNull(),
    channel: text('channel', { enum: ['sms', 'lms', 'alimtalk'] }).notNull(),
    /** `refused`: the provider said no (not retried); `failed`: 5xx or no answer, given up after retries. */
    outcome: text('outcome', { enum: ['refused', 'failed'] }).notNull(),
    /** The named reason of a refusal (server/messages/transport.ts RefusalReason); null when failed. */
    reason: text('reason'),
    /** The provider's own code (its errorCode or statusCode), and the HTTP status when there was one. */
    code: text('code').notNull(),
    httpStatus: integer('http_status'),
    /** The provider's message, at most 200 characters, numbers masked. */
    detail: text('detail').notNull(),
    recipient: text('recipient').notNull(),
    attempts: integer('attempts').notNull(),
  },
  (table) => [index('message_failures_at').on(table.at)],
)
