// Sending a notification to every live subscription of a user, and what the push service's answer does
// to the subscription (docs/product.md decision 91): 2xx delivered; 404 and 410 the subscription is
// gone, its row is deleted; 429 and 5xx (and no answer) the service asks us to wait: nothing more goes to
// that subscription before its Retry-After (seconds or an HTTP date; without one 30 s, doubling per
// refusal in a row, at most an hour); any other status is logged. Only subscriptions of live sign-ins
// are sent to (a revoked sign-in's are deleted by the database's trigger; an expired one's are skipped
// and swept).
import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import type { PushPayload } from '../../contract/push.ts'
import { backoff, retryAfterMs } from '../../domain/backoff.ts'
import type { Db } from '../db/client.ts'
import { pushSubscriptions, signIns } from '../db/schema.ts'
import type { PushTransport, Urgency } from './transport.ts'

export interface SendOptions {
  ttlSeconds: number
  urgency: Urgency
  topic?: string
}

export interface SendReport {
  /** Subscriptions the push service took the message for. */
  sent: number
  /** Deleted: the push service said they are gone (404, 410). */
  gone: number
  /** Not sent to, or refused for now: backing off until their Retry-After. */
  deferred: number
  /** Refused for another reason (logged). */
  failed: number
}

const firstBackoffMs = 30_000
const maxBackoffMs = 60 * 60_000
/** A Retry-After longer than this is taken as this (a day): a subscription is not given up on for it. */
const maxRetryAfterMs = 24 * 60 * 60_000

/** How long to wait after a refusal: the service's Retry-After when it gave one, else doubling from 30 s. */
export function backoffMs(retryAfter: string | undefined, failuresBefore: number, now: Date): number {
  const asked = retryAfterMs(retryAfter, now.getTime())
  if (asked !== undefined) return Math.min(asked, maxRetryAfterMs)
  return backoff(failuresBefore, { firstMs: firstBackoffMs, maxMs: maxBackoffMs })
}

export function createPush({
  db,
  transport,
  now,
  log,
}: {
  db: Db
  transport: () => Promise<PushTransport>
  now: () => Date
  log: FastifyBaseLogger
}) {
  return {
    /** Sends `payload` to every live subscription of the user, all at once; never throws for one that fails. */
    async sendToUser(userId: number, payload: PushPayload, options: SendOptions): Promise<SendReport> {
      const at = now()
      const rows = await db
        .select({
          endpoint: pushSubscriptions.endpoint,
          p256dh: pushSubscriptions.p256dh,
          auth: pushSubscriptions.auth,
          retryAt: pushSubscriptions.retryAt,
          failures: pushSubscriptions.failures,
        })
        .from(pushSubscriptions)
        .innerJoin(signIns, eq(signIns.id, pushSubscriptions.signInId))
        .where(
          and(eq(pushSubscriptions.userId, userId), isNull(signIns.revokedAt), gt(signIns.expiresAt, at)),
        )
      const report: SendReport = { sent: 0, gone: 0, deferred: 0, failed: 0 }
      const text = JSON.stringify(payload)
      const push = await transport()
      await Promise.all(
        rows.map(async (row) => {
          if (row.retryAt && row.retryAt > at) {
            report.deferred++
            return
          }
          let statusCode: number | undefined
          let retryAfter: string | undefined
          try {
            ;({ statusCode, retryAfter } = await push.send({
              endpoint: row.endpoint,
              keys: { p256dh: row.p256dh, auth: row.auth },
              payload: text,
              ...options,
            }))
          } catch (error) {
            log.warn(
              { err: error, host: new URL(row.endpoint).host },
              'push: no answer from the push service',
            )
          }
          const where = eq(pushSubscriptions.endpoint, row.endpoint)
          if (statusCode !== undefined && statusCode >= 200 && statusCode < 300) {
            report.sent++
            if (row.failures > 0 || row.retryAt)
              await db.update(pushSubscriptions).set({ failures: 0, retryAt: null }).where(where)
          } else if (statusCode === 404 || statusCode === 410) {
            report.gone++
            await db.delete(pushSubscriptions).where(where)
          } else if (statusCode === undefined || statusCode === 429 || statusCode >= 500) {
            report.deferred++
            const wait = backoffMs(retryAfter, row.failures, at)
            await db
              .update(pushSubscriptions)
              .set({
                failures: sql`${pushSubscriptions.failures} + 1`,
                retryAt: new Date(at.getTime() + wait),
              })
              .where(where)
          } else {
            report.failed++
            log.warn({ statusCode, host: new URL(row.endpoint).host }, 'push: refused by the push service')
          }
        }),
      )
      return report
    },

    /** Deletes the subscriptions of sign-ins that expired (revoked ones went with the revocation). */
    async sweep(at: Date) {
      await db
        .delete(pushSubscriptions)
        .where(
          sql`${pushSubscriptions.signInId} in (select ${signIns.id} from ${signIns} where ${or(lt(signIns.expiresAt, at), sql`${signIns.revokedAt} is not null`)})`,
        )
    },
  }
}

export type Push = ReturnType<typeof createPush>
