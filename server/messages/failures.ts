// The messages the provider refused or that failed for good, kept for operators: each is logged once
// with the provider's code (the number masked, never the text) and kept in message_failures, which
// `npm run admin -- messages` lists newest first (docs/product.md decision 217).
import { desc, lt } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { messageFailures } from '../db/schema-messages.ts'
import { maskPhone, type SendOutcome } from './transport.ts'

/** How long a failure is kept. */
const keptDays = 90

export type FailedOutcome = Extract<SendOutcome, { status: 'refused' | 'failed' }>

export interface MessageFailure {
  /** What the message carried: `signIn`, or an alert kind. */
  purpose: string
  /** The recipient's number, in full: it is masked before it is logged or kept. */
  to: string
  outcome: FailedOutcome
  /** Tries made, the first included. */
  attempts: number
  at: Date
}

interface Log {
  error(object: object, message: string): void
}

/** Logs the failure once and keeps it; a database that cannot take it is logged, never thrown. */
export async function recordMessageFailure(db: Db, log: Log, failure: MessageFailure): Promise<void> {
  const { outcome } = failure
  const row = {
    at: failure.at,
    purpose: failure.purpose,
    channel: outcome.channel,
    outcome: outcome.status,
    reason: outcome.status === 'refused' ? outcome.reason : null,
    code: outcome.code,
    httpStatus: outcome.httpStatus ?? null,
    detail: outcome.detail,
    recipient: maskPhone(failure.to),
    attempts: failure.attempts,
  }
  log.error(
    { ...row, at: undefined },
    outcome.status === 'refused' ? 'the message provider refused a message' : 'a message failed; gave up',
  )
  try {
    await db.transaction(async (tx) => {
      await tx
        .delete(messageFailures)
        .where(lt(messageFailures.at, new Date(failure.at.getTime() - keptDays * 86_400_000)))
      await tx.insert(messageFailures).values(row)
    })
  } catch (error) {
    log.error({ error: (error as Error).message }, 'keeping a message failure failed')
  }
}

/** The newest failures first, as `npm run admin -- messages` prints them. */
export async function lastMessageFailures(db: Db, limit = 20) {
  return db
    .select()
    .from(messageFailures)
    .orderBy(desc(messageFailures.at), desc(messageFailures.id))
    .limit(limit)
}

/** One line of `npm run admin -- messages`. */
export function failureLine(row: Awaited<ReturnType<typeof lastMessageFailures>>[number]): string {
  return [
    row.at.toISOString(),
    row.purpose,
    row.channel,
    row.outcome === 'refused'
      ? `refused (${row.reason})`
      : `failed after ${row.attempts} ${row.attempts === 1 ? 'try' : 'tries'}`,
    `code ${row.code}${row.httpStatus === null ? '' : ` (HTTP ${row.httpStatus})`}`,
    `to ${row.recipient}`,
    row.detail,
  ].join('  ')
}
