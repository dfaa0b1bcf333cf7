// Sliding windows (an hour, or a day) counted in the database (table rate_events), so that every server
// instance sharing the database shares the counts. A window is checked and taken in one transaction
// under an advisory lock of its key (`freeAts`, then `recordEvents`): concurrent requests, on any
// instance, take exactly the slots there are.

import { and, asc, count, eq, gt, lt, lte, sql } from 'drizzle-orm'
import ipaddr from 'ipaddr.js'
import type { Db } from '../db/client.ts'
import { loginCodes, phoneLocks, rateEvents } from '../db/schema.ts'

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

export interface Window {
  key: string
  limit: number
  /** The sliding window's length; one hour unless given. */
  windowMs?: number
}

const hourMs = 60 * 60 * 1000
export const dayMs = 24 * hourMs
/** The longest window any limit counts over: an event older than this counts for nothing. */
export const longestWindowMs = dayMs

/** Serialises transactions on one key (a phone, an address) across connections and instances. */
export const lockKey = (tx: Tx, key: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`)

/**
 * When the key will hold fewer than `limit` events in its window (ms on the caller's clock; 0: it
 * already does), after dropping the events that have left the window. Call it with the key's lock held.
 */
async function freeAt(tx: Tx, now: Date, { key, limit, windowMs = hourMs }: Window) {
  const since = new Date(now.getTime() - windowMs)
  await tx.delete(rateEvents).where(and(eq(rateEvents.key, key), lte(rateEvents.at, since)))
  const [row] = await tx.select({ n: count() }).from(rateEvents).where(eq(rateEvents.key, key))
  if ((row?.n ?? 0) < limit) return 0
  const [oldest] = await tx
    .select({ at: rateEvents.at })
    .from(rateEvents)
    .where(and(eq(rateEvents.key, key), gt(rateEvents.at, since)))
    .orderBy(asc(rateEvents.at))
    .limit(1)
  return (oldest?.at.getTime() ?? now.getTime()) + windowMs
}

/** Whole seconds from `now` until `until` (ms), at least 1, as Retry-After says it; 0 when `until` is 0. */
export const secondsUntil = (until: number, now: Date) =>
  until === 0 ? 0 : Math.max(1, Math.ceil((until - now.getTime()) / 1000))

/**
 * When each window has room (ms; 0: it has now), taking nothing; each key stays locked to the
 * transaction in this order, so what it says holds until `recordEvents` takes the slots.
 */
export async function freeAts(tx: Tx, now: Date, windows: Window[]) {
  for (const { key } of windows) await lockKey(tx, `rate:${key}`)
  const untils: number[] = []
  for (const window of windows) untils.push(await freeAt(tx, now, window))
  return untils
}

/** Records one event under the key, whatever the count (the caller decides what a full window means). */
export async function recordEvent(tx: Tx, now: Date, key: string) {
  await lockKey(tx, `rate:${key}`)
  await tx.insert(rateEvents).values({ key, at: now })
}

/** Records one event under every key, whose locks the transaction already holds (`freeAts`). */
export async function recordEvents(tx: Tx, now: Date, keys: string[]) {
  if (keys.length > 0) await tx.insert(rateEvents).values(keys.map((key) => ({ key, at: now })))
}

/**
 * Deletes the events no window can count any more. A key is swept when it is checked again, but most
 * keys (one per client address, per phone and address) never are: without this the table only grows.
 */
export async function sweepOldEvents(db: Db, now: Date) {
  await db.delete(rateEvents).where(lt(rateEvents.at, new Date(now.getTime() - longestWindowMs)))
}

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

/** Every sweep of sign-in state: old rate events, forgotten locks, expired codes. */
export async function sweepSignInState(db: Db, now: Date) {
  await sweepOldEvents(db, now)
  await sweepOldLocks(db, now)
  await sweepExpiredCodes(db, now)
}

/**
 * The part of a client address that one party controls: the whole IPv4 address, or the /64 network
 * of an IPv6 one (a single subscriber is usually given a whole /64).
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip
  const address = ipaddr.process(ip)
  if (address.kind() === 'ipv4') return address.toString()
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`
}
