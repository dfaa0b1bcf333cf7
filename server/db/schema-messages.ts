// The tables of the message transport (server/messages/), apart from schema.ts, which is at its size
// limit; drizzle-kit reads both (drizzle.config.ts).
import { bigint, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

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
