// The owner's view of a store's devices: the list, renaming, revoking (docs/product.md §11). Every
// call names the store, and a device of another store is not found. Revoking is for good and at once:
// the key's check reads the row on every request (auth.ts), and a batch being stored re-checks it
// before its commit (ingest.ts); its waiting pairing code goes with it. Devices are never deleted:
// their sales keep their source.
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm'
import type { Device } from '../../contract/api.ts'
import type { Db } from '../db/client.ts'
import { devicePairings, devices, machines } from '../db/schema.ts'

const iso = (date: Date | null) => (date ? date.toISOString() : null)

export async function listDevices(db: Db, storeId: number): Promise<Device[]> {
  const rows = await db
    .select({
      id: devices.id,
      name: devices.name,
      createdAt: devices.createdAt,
      pairedAt: devices.pairedAt,
      lastSeenAt: devices.lastSeenAt,
      lastSaleAt: devices.lastSaleAt,
      pending: devices.pending,
      skewMs: devices.skewMs,
      revokedAt: devices.revokedAt,
      terminal: devices.terminal,
      terminalSince: devices.terminalSince,
    })
    .from(devices)
    .where(eq(devices.storeId, storeId))
    .orderBy(asc(devices.createdAt), asc(devices.id))
  // The machines whose last heartbeat came from each device (docs/product.md §14).
  const reported = await db
    .select({ deviceId: machines.deviceId, machine: machines.machine, state: machines.state })
    .from(machines)
    .where(and(eq(machines.storeId, storeId), isNotNull(machines.deviceId)))
    .orderBy(asc(machines.machine))
  const byDevice = new Map<number, Device['machines']>()
  for (const { deviceId, machine, state } of reported) {
    const list = byDevice.get(deviceId as number) ?? []
    list.push({ machine, state: state as Device['machines'][number]['state'] })
    byDevice.set(deviceId as number, list)
  }
  return rows.map((row) => ({
    ...row,
    createdAt: row.createdAt.toISOString(),
    pairedAt: iso(row.pairedAt),
    lastSeenAt: iso(row.lastSeenAt),
    lastSaleAt: iso(row.lastSaleAt),
    skewMs: row.skewMs === null ? null : Number(row.skewMs),
    revokedAt: iso(row.revokedAt),
    terminal: row.terminal as Device['terminal'],
    terminalSince: iso(row.terminalSince),
    machines: byDevice.get(row.id) ?? [],
  }))
}

/** False when the store has no such device. */
export async function renameDevice(db: Db, storeId: number, deviceId: number, name: string) {
  const changed = await db
    .update(devices)
    .set({ name })
    .where(and(eq(devices.id, deviceId), eq(devices.storeId, storeId)))
    .returning({ id: devices.id })
  return changed.length > 0
}

/** False when the store has no such device; revoking a revoked device changes nothing. */
export async function revokeDevice(db: Db, storeId: number, deviceId: number, now: Date) {
  return db.transaction(async (tx) => {
    const changed = await tx
      .update(devices)
      .set({ revokedAt: sql`coalesce(${devices.revokedAt}, ${now.toISOString()}::timestamptz)` })
      .where(and(eq(devices.id, deviceId), eq(devices.storeId, storeId)))
      .returning({ id: devices.id })
    if (changed.length === 0) return false
    await tx.delete(devicePairings).where(eq(devicePairings.deviceId, deviceId))
    return true
  })
}

/**
 * Revokes every device of the store not revoked yet (`npm run admin -- revoke-device <store> all`), with
 * their waiting pairing codes, in one transaction; returns their ids.
 */
export async function revokeAllDevices(db: Db, storeId: number, now: Date): Promise<number[]> {
  return db.transaction(async (tx) => {
    const changed = await tx
      .update(devices)
      .set({ revokedAt: now })
      .where(and(eq(devices.storeId, storeId), isNull(devices.revokedAt)))
      .returning({ id: devices.id })
    const ids = changed.map((row) => row.id).sort((a, b) => a - b)
    if (ids.length > 0)
      await tx
        .delete(devicePairings)
        .where(
          sql`${devicePairings.deviceId} in (select id from ${devices} where ${devices.storeId} = ${storeId} and ${devices.revokedAt} is not null)`,
        )
    return ids
  })
}
