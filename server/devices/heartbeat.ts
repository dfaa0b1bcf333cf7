// A device's heartbeat: the sales waiting in its queue, and its clock's skew when it sends `sentAt`.
// Being seen is recorded by the key's check (auth.ts); a device revoked since is refused (null). The
// answer tells the database's generation (server/db/generation.ts).
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../db/client.ts'
import { generationSubquery } from '../db/generation.ts'

export async function recordHeartbeat(
  db: Db,
  { deviceId, pending, skewMs }: { deviceId: number; pending: number; skewMs: number | null },
) {
  const [row] = await queryRows<{ id: number; generation: string }>(
    db,
    sql`update devices set pending = ${pending}, skew_ms = coalesce(${skewMs}::bigint, skew_ms)
        where id = ${deviceId} and revoked_at is null returning id, ${generationSubquery} as generation`,
  )
  return row ? { generation: row.generation } : null
}
