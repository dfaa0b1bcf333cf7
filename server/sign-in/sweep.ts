// What sign-in leaves behind and no request may ever delete: the lock rows of clients long gone, and
// codes past their expiry. Every instance sweeps, with the old rate-limit events (rate-limit.ts).
import { lt, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { loginCodes, phoneLocks } from '../db/schema.ts'
import { longestWindowMs } from '../rate-limit.ts'

/**
 * Deletes the lock rows of clients whose last failure and last lock both ended more than a day ago
 * (`longestWindowMs`): their consecutive failures and their lock ladder are forgotten. Most rows are
 * never touched again (a stranger's address tries once and leaves): without this the table only grows.
 * Forgetting a ladder after a quiet day changes no bound: a client's failures in any 24 hours are
 * counted from an empty row anyway (at most 60 by default), and a number's guesses by its daily windows.
 */
export async function sweepOldLocks(db: Db, now: Date) {
  const before = new Date(now.getTime() - longestWindowMs)
  await db
    .delete(phoneLocks)
    .where(
      sql`greatest(${phoneLocks.lastFailureAt}, ${phoneLocks.lockedUntil}) < ${before.toISOString()}::timestamptz`,
    )
}

/** Deletes sign-in codes past their expiry (a code request also deletes them, but not every server gets one). */
export async function sweepExpiredCodes(db: Db, now: Date) {
  await db.delete(loginCodes).where(lt(loginCodes.expiresAt, now))
}

/** Every sweep of sign-in state: forgotten locks, expired codes. */
export async function sweepSignInState(db: Db, now: Date) {
  await sweepOldLocks(db, now)
  await sweepExpiredCodes(db, now)
}
