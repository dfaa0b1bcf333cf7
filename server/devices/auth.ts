// A device's key on a request: which device it is, and its rate limit, in one statement. Nothing is
// cached: the row is read (and written) on every request, so a revoked key is refused at once on
// every instance. The row also keeps the key's rate window (a fixed minute: its start and the
// requests counted in it; server/rate-limit.ts), which the update moves under the row's lock, so
// concurrent requests on any instance count exactly. Every request, refused for its rate or not, is
// the device being seen.
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../db/client.ts'
import { messages } from '../errors.ts'
import { fixedWindowRefusal, fixedWindowSet, type Refusal } from '../rate-limit.ts'
import { secretHash } from './keys.ts'

export const rateWindowMs = 60_000

export type DeviceAuth =
  | { ok: true; id: number; storeId: number }
  | { ok: false; reason: 'key' }
  | { ok: false; reason: 'limit'; refusal: Refusal }

export async function authenticateDevice(
  db: Db,
  { key, now, perMinute }: { key: string; now: Date; perMinute: number },
): Promise<DeviceAuth> {
  const at = now.toISOString()
  const [row] = await queryRows<{ id: number; store_id: number; window_at: Date | string; count: number }>(
    db,
    sql`update devices set
          last_seen_at = ${at}::timestamptz,
          ${fixedWindowSet(now, rateWindowMs, { startAt: 'rate_window_at', count: 'rate_count' })}
        where key_hash = ${secretHash(key)} and revoked_at is null
        returning id, store_id, rate_window_at as window_at, rate_count as count`,
  )
  if (!row) return { ok: false, reason: 'key' }
  const refusal = fixedWindowRefusal(
    { limit: perMinute, windowMs: rateWindowMs, message: messages.tooManyDeviceRequests },
    { startAt: row.window_at, count: row.count },
  )
  if (refusal) return { ok: false, reason: 'limit', refusal }
  return { ok: true, id: row.id, storeId: row.store_id }
}
