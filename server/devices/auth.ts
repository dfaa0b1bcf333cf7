// A device's key on a request: which device it is, and its rate limit, in one statement. Nothing is
// cached: the row is read (and written) on every request, so a revoked key is refused at once on
// every instance. The row also keeps the key's rate window (a fixed minute: its start and the
// requests counted in it), which the update moves under the row's lock, so concurrent requests on
// any instance count exactly. Every request, refused for its rate or not, is the device being seen.
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../db/client.ts'
import { secretHash } from './keys.ts'

export const rateWindowMs = 60_000

export type DeviceAuth =
  | { ok: true; id: number; storeId: number }
  | { ok: false; reason: 'key' }
  | { ok: false; reason: 'limit'; retryAfterSeconds: number }

export async function authenticateDevice(
  db: Db,
  { key, now, perMinute }: { key: string; now: Date; perMinute: number },
): Promise<DeviceAuth> {
  const at = now.toISOString()
  const [row] = await queryRows<{ id: number; store_id: number; window_at: Date | string; count: number }>(
    db,
    sql`update devices set
          last_seen_at = ${at}::timestamptz,
          rate_window_at = case when rate_window_at > ${at}::timestamptz - interval '1 minute'
            and rate_window_at <= ${at}::timestamptz then rate_window_at else ${at}::timestamptz end,
          rate_count = case when rate_window_at > ${at}::timestamptz - interval '1 minute'
            and rate_window_at <= ${at}::timestamptz then rate_count + 1 else 1 end
        where key_hash = ${secretHash(key)} and revoked_at is null
        returning id, store_id, rate_window_at as window_at, rate_count as count`,
  )
  if (!row) return { ok: false, reason: 'key' }
  if (row.count > perMinute) {
    const until = new Date(row.window_at).getTime() + rateWindowMs
    return {
      ok: false,
      reason: 'limit',
      retryAfterSeconds: Math.max(1, Math.ceil((until - now.getTime()) / 1000)),
    }
  }
  return { ok: true, id: row.id, storeId: row.store_id }
}
