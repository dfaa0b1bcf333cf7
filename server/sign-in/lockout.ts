// The lock ladder of a client on a phone (the `phone_locks` row of the pair): every
// SIGN_FAILURES_BEFORE_LOCK consecutive failures lock the client out of the phone, LOCK_MINUTES the
// first time and twice as long each time after, at most LOCK_MAX_HOURS; a sign-in ends the ladder.
// Each failure also counts in the phone-wide failures of the client's kind (windows.ts).
import { and, eq } from 'drizzle-orm'
import { phoneLocks } from '../db/schema.ts'
import { messages } from '../errors.ts'
import { recordEvent, type Tx } from '../rate-limit.ts'
import type { Refusals } from './refusals.ts'
import { type Client, type Limits, lockName, phoneFailures } from './windows.ts'

export type PhoneLock = typeof phoneLocks.$inferSelect

const ofClient = (phone: string, client: Client) =>
  and(eq(phoneLocks.phone, phone), eq(phoneLocks.clientKey, client.key))

export function createLockout(limits: Limits, refusals: Refusals) {
  return {
    /** The client's lock row of the phone, if it has failed there since its last sign-in. */
    async lockOf(tx: Tx, phone: string, client: Client): Promise<PhoneLock | undefined> {
      const [lock] = await tx.select().from(phoneLocks).where(ofClient(phone, client))
      return lock
    },

    /** Counts one more failed sign-in of the client and locks it at every Nth; returns when the lock ends (ms), or 0. */
    async countFailure(tx: Tx, phone: string, client: Client, at: Date, previous: PhoneLock | undefined) {
      await recordEvent(tx, at, phoneFailures(limits, phone, client.known).key)
      const failures = (previous?.failures ?? 0) + 1
      let locks = previous?.locks ?? 0
      let lockedUntil = previous?.lockedUntil ?? null
      let until = 0
      if (failures % limits.signFailuresBeforeLock === 0) {
        locks += 1
        const seconds = Math.min(limits.lockMinutes * 60 * 2 ** (locks - 1), limits.lockMaxHours * 3600)
        lockedUntil = new Date(at.getTime() + seconds * 1000)
        until = lockedUntil.getTime()
        refusals.note(lockName(phone, client), until, messages.phoneLocked)
      }
      const row = { failures, locks, lockedUntil, lastFailureAt: at }
      await tx
        .insert(phoneLocks)
        .values({ phone, clientKey: client.key, ...row })
        .onConflictDoUpdate({ target: [phoneLocks.phone, phoneLocks.clientKey], set: row })
      return until
    },

    /** Ends the client's ladder on the phone: it signed in. */
    async clear(tx: Tx, phone: string, client: Client) {
      await tx.delete(phoneLocks).where(ofClient(phone, client))
    },
  }
}

export type Lockout = ReturnType<typeof createLockout>
