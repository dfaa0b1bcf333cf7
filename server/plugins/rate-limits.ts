// Sliding one-hour windows counted in the database (table rate_events), so that every server
// instance sharing the database shares the counts.

import { and, asc, count, eq, gt, lte, sql } from 'drizzle-orm'
import ipaddr from 'ipaddr.js'
import type { Db } from '../db/client.ts'
import { rateEvents } from '../db/schema.ts'
import { ApiError } from '../errors.ts'

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

export interface Window {
  key: string
  limit: number
}

const windowMs = 60 * 60 * 1000

/** Serialises transactions on one key (a phone, an address) across connections and instances. */
export const lockKey = (tx: Tx, key: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`)

/**
 * Records one event under every key, or none: when any key already holds `limit` events in the last
 * hour, throws a 429 whose Retry-After is when that key's oldest event leaves the window.
 */
export async function takeSlots(tx: Tx, now: Date, windows: Window[], message: string) {
  const since = new Date(now.getTime() - windowMs)
  for (const { key } of windows) {
    await lockKey(tx, `rate:${key}`)
    await tx.delete(rateEvents).where(and(eq(rateEvents.key, key), lte(rateEvents.at, since)))
  }
  for (const { key, limit } of windows) {
    const [row] = await tx.select({ n: count() }).from(rateEvents).where(eq(rateEvents.key, key))
    if ((row?.n ?? 0) < limit) continue
    const [oldest] = await tx
      .select({ at: rateEvents.at })
      .from(rateEvents)
      .where(and(eq(rateEvents.key, key), gt(rateEvents.at, since)))
      .orderBy(asc(rateEvents.at))
      .limit(1)
    const freeAt = (oldest?.at.getTime() ?? now.getTime()) + windowMs
    throw new ApiError(429, message, Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000)))
  }
  await tx.insert(rateEvents).values(windows.map(({ key }) => ({ key, at: now })))
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
