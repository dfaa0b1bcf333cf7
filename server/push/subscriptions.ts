// A browser's push subscription, kept for the sign-in that sent it (docs/product.md decisions 91, 146,
// 169): PUT stores it (one row per endpoint: a browser that sends it again under another sign-in moves
// it there, so a shared device only ever receives the alerts of whoever is signed in on it; under
// another user's sign-in only with the same keys, which only that browser holds; one per sign-in, ten a
// user); DELETE removes the caller's own; ending the sign-in removes it (the database's trigger,
// migration 0008).
import { createHmac } from 'node:crypto'
import { and, eq, ne, sql } from 'drizzle-orm'
import type { PushSubscriptionRequest } from '../../contract/api.ts'
import type { Db } from '../db/client.ts'
import { pushSubscriptions } from '../db/schema.ts'
import type { VapidKeys } from './transport.ts'

/**
 * The user's mark (GET /push/key, docs/product.md decision 167): the app keeps it on a browser where the
 * user chose alerts, and sends the subscription again at start only for a user whose mark it keeps. An
 * HMAC of the user's id under the server's private VAPID key: the same on every instance, and nobody
 * reading a browser's storage can tell whose it is. New VAPID keys give new marks (the users then press
 * `알림 받기` again on their browsers).
 */
export function alertChoiceMark(keys: VapidKeys, userId: number): string {
  return createHmac('sha256', `alert-choice:${keys.privateKey}`)
    .update(String(userId))
    .digest()
    .subarray(0, 16)
    .toString('base64url')
}

/** The subscriptions a user keeps at most: one per sign-in, and this many in all (the oldest go). */
export const subscriptionsPerUser = 10

/**
 * Keeps the browser's subscription for the sign-in. A browser has one subscription (its service
 * worker's), so another endpoint of the same sign-in is that browser's older one and goes; and a user
 * keeps the `subscriptionsPerUser` sent most recently, so that no caller can make one alert (or one
 * test notification) into thousands of sends. Sent again with the same keys, as the app does on every
 * start, the subscription keeps the backoff its push service asked for. One user at a time (a
 * transaction-scoped advisory lock), on any instance.
 *
 * An endpoint another user's sign-in holds moves only with its keys (p256dh and auth, which the browser
 * made and only it and this server know): the same browser after another sign-in. Sent with other keys
 * (someone replaying an endpoint they saw) it stays as it is, in the same statement whatever runs
 * beside it, and the caller is answered as for any subscription kept, learning nothing from the answer.
 */
export async function saveSubscription(
  db: Db,
  owner: { userId: number; signInId: string },
  subscription: PushSubscriptionRequest,
  now: Date,
) {
  const p256dh = subscription.keys.p256dh.replace(/=+$/, '')
  const auth = subscription.keys.auth.replace(/=+$/, '')
  const sameKeys = sql`${pushSubscriptions.p256dh} = excluded.p256dh and ${pushSubscriptions.auth} = excluded.auth`
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`push:user:${owner.userId}`}))`)
    await tx
      .delete(pushSubscriptions)
      .where(
        and(
          eq(pushSubscriptions.signInId, owner.signInId),
          ne(pushSubscriptions.endpoint, subscription.endpoint),
        ),
      )
    await tx
      .insert(pushSubscriptions)
      .values({
        endpoint: subscription.endpoint,
        userId: owner.userId,
        signInId: owner.signInId,
        p256dh,
        auth,
        createdAt: now,
        updatedAt: now,
        retryAt: null,
        failures: 0,
      })
      .onConflictDoUpdate({
        target: pushSubscriptions.endpoint,
        set: {
          userId: owner.userId,
          signInId: owner.signInId,
          p256dh,
          auth,
          updatedAt: now,
          retryAt: sql`case when ${sameKeys} then ${pushSubscriptions.retryAt} end`,
          failures: sql`case when ${sameKeys} then ${pushSubscriptions.failures} else 0 end`,
        },
        setWhere: sql`${pushSubscriptions.userId} = excluded.user_id or (${sameKeys})`,
      })
    await tx.execute(
      sql`delete from push_subscriptions where user_id = ${owner.userId} and endpoint not in (
            select endpoint from push_subscriptions where user_id = ${owner.userId}
            order by updated_at desc, endpoint limit ${subscriptionsPerUser})`,
    )
  })
}

export async function removeSubscription(db: Db, userId: number, endpoint: string) {
  await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.userId, userId)))
}
