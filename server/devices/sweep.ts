// What the devices leave behind and no request ever deletes: answered batches past the 24 hours their
// Idempotency-Key is kept (a retry after that is a new batch, whose sales are still stored once each:
// ingest.ts), and pairing codes past their 10 minutes. Every instance sweeps with the sign-in state.
import { lt } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { deviceBatches, devicePairings } from '../db/schema.ts'
import { dayMs } from '../rate-limit.ts'

/** How long an answered batch's key is kept: at least this long, until the next hourly sweep after it. */
export const batchKeptMs = dayMs

export async function sweepDeviceState(db: Db, now: Date) {
  await db.delete(deviceBatches).where(lt(deviceBatches.createdAt, new Date(now.getTime() - batchKeptMs)))
  await db.delete(devicePairings).where(lt(devicePairings.expiresAt, now))
}
