// Every rate limit of the server goes through this one module: the sign-in limits (sign-in/otp.ts),
// pairing attempts and devices added (devices/pairing.ts), a device key's requests (devices/auth.ts) and
// test notifications (routes/push.ts). A limit is a key, a count, a window and the Korean message of its
// 429; it is counted in the database, so that every server instance sharing the database shares the
// counts, and checked and taken in one transaction under its key's lock: concurrent requests, on any
// instance, take exactly the slots there are. A refused request takes no slot, and is answered 429 with
// the limit's message and Retry-After: the whole seconds until the window has room (`rateLimited`).
//
// Two places keep the counts. A sliding window (an hour, a day, ten minutes: "in any hour") keeps one
// row per event in `rate_events`, under an advisory lock of its key (`take`, or `freeAts` then
// `recordEvents` for the sign-in's several windows at once). A fixed window on a row of its own keeps
// its start and count on that row (a device key's minute, on the device's row: `fixedWindowSet` and
// `fixedWindowRefusal`), moved by the statement that reads the row, under the row's lock: the hot path
// of every device request stays one statement (docs/product.md decision 70).

import { and, asc, count, eq, gt, lt, lte, type SQL, sql } from 'drizzle-orm'
import ipaddr from 'ipaddr.js'
import type { Db } from './db/client.ts'
import { rateEvents } from './db/schema.ts'
import { ApiError } from './errors.ts'

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/** A sliding window: at most `limit` events under `key` in any `windowMs` (one hour unless given). */
export interface Window {
  key: string
  limit: number
  windowMs?: number
}

/** A limit: its window and the message of its 429. */
export interface Limit extends Window {
  message: string
}

/** Why a request may not go on, and until when (ms on the server's clock). */
export interface Refusal {
  until: number
  message: string
}

export const hourMs = 60 * 60 * 1000
export const dayMs = 24 * hourMs
/** The longest window any limit counts over: an event older than this counts for nothing. */
export const longestWindowMs = dayMs

/** Serialises transactions on one key (a phone, an address) across connections and instances. */
export const lockKey = (tx: Tx, key: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`)

/** Whole seconds from `now` until `until` (ms), at least 1, as Retry-After says it; 0 when `until` is 0. */
export const secondsUntil = (until: number, now: Date) =>
  until === 0 ? 0 : Math.max(1, Math.ceil((until - now.getTime()) / 1000))

/** The 429 of a refusal: its message, and Retry-After until it ends. */
export const rateLimited = (refusal: Refusal, now: Date) =>
  new ApiError(429, refusal.message, secondsUntil(refusal.until, now))

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
 * Takes one slot of the limit's window in the transaction, or, when it is full, takes nothing and
 * says until when (the transaction keeps the key locked until it ends).
 */
export async function take(tx: Tx, now: Date, limit: Limit): Promise<Refusal | undefined> {
  const [until = 0] = await freeAts(tx, now, [limit])
  if (until > 0) return { until, message: limit.message }
  await recordEvents(tx, now, [limit.key])
  return undefined
}

/**
 * Deletes the events no window can count any more. A key is swept when it is checked again, but most
 * keys (one per client address, per phone and address) never are: without this the table only grows.
 */
export async function sweepOldEvents(db: Db, now: Date) {
  await db.delete(rateEvents).where(lt(rateEvents.at, new Date(now.getTime() - longestWindowMs)))
}

/** A fixed window kept on a row: the columns of its start and of the requests counted in it. */
export interface FixedWindowColumns {
  startAt: string
  count: string
}

/**
 * The assignments of an `update ... set` that count one more request in the row's fixed window: the
 * window goes on while it started within `windowMs` before `at`, else a new one starts at `at` with
 * this request. The update's row lock makes concurrent requests on any instance count exactly.
 */
export function fixedWindowSet(at: Date, windowMs: number, columns: FixedWindowColumns): SQL {
  const startAt = sql.identifier(columns.startAt)
  const counted = sql.identifier(columns.count)
  const instant = sql`${at.toISOString()}::timestamptz`
  const goesOn = sql`${startAt} > ${instant} - ${`${windowMs} milliseconds`}::interval and ${startAt} <= ${instant}`
  return sql`${startAt} = case when ${goesOn} then ${startAt} else ${instant} end,
    ${counted} = case when ${goesOn} then ${counted} + 1 else 1 end`
}

/** The refusal of a request counted in a fixed window (as the update returned it) past its limit. */
export function fixedWindowRefusal(
  limit: Omit<Limit, 'key'>,
  window: { startAt: Date | string; count: number },
): Refusal | undefined {
  if (window.count <= limit.limit) return undefined
  return { until: new Date(window.startAt).getTime() + (limit.windowMs ?? hourMs), message: limit.message }
}

/**
 * The part of a client address that one party controls, which limits per address count: the whole
 * IPv4 address, or the /64 network of an IPv6 one (a single subscriber is usually given a whole /64).
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip
  const address = ipaddr.process(ip)
  if (address.kind() === 'ipv4') return address.toString()
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`
}
