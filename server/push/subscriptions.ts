// A browser's push subscription, kept for the sign-in that sent it (docs/product.md decision 91): PUT
// stores it (one row per endpoint: a browser that sends it again under another sign-in moves it there,
// so a shared device only ever receives the alerts of whoever is signed in on it); DELETE removes the
// caller's own; ending the sign-in removes it (the database's trigger, migration 0008).
import { and, eq } from 'drizzle-orm'
import type { PushSubscriptionRequest } from '../../contract/api.ts'
import type { Db } from '../db/client.ts'
import { pushSubscriptions } from '../db/schema.ts'

export async function saveSubscription(
  db: Db,
  owner: { userId: number; signInId: string },
  subscription: PushSubscriptionRequest,
  now: Date,
) {
  const values = {
    endpoint: subscription.endpoint,
    userId: owner.userId,
    signInId: owner.signInId,
    p256dh: subscription.keys.p256dh.replace(/=+$/, ''),
    auth: subscription.keys.auth.replace(/=+$/, ''),
    updatedAt: now,
    retryAt: null,
    failures: 0,
  }
  await db
    .insert(pushSubscriptions)
    .values({ ...values, createdAt: now })
    .onConflictDoUpdate({ target: pushSubscriptions.endpoint, set: values })
}

export async function removeSubscription(db: Db, userId: number, endpoint: string) {
  await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.userId, userId)))
}
