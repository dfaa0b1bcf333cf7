// Adding a device and pairing it (docs/product.md §11). The owner adds a device by name and gets its
// pairing code; the device trades the code, once, within 10 minutes, for its key. Both limits are
// sliding windows of the server's one rate-limit mechanism (server/rate-limit.ts), so several instances
// count as one: devices added per store per hour, pairing attempts per client address per hour.
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { devicePairings, devices } from '../db/schema.ts'
import { messages } from '../errors.ts'
import { type Refusal, take } from '../rate-limit.ts'
import { newDeviceKey, newPairingCode, normalizedPairingCode, secretHash } from './keys.ts'

export const pairingCodeTtlMs = 10 * 60 * 1000

export type Added =
  | { ok: true; id: number; name: string; pairingCode: string; expiresAt: Date }
  | { ok: false; refusal: Refusal }

export async function addDevice(
  db: Db,
  { storeId, name, now, perHour }: { storeId: number; name: string; now: Date; perHour: number },
): Promise<Added> {
  return db.transaction(async (tx) => {
    const refusal = await take(tx, now, {
      key: `devices-added:${storeId}`,
      limit: perHour,
      message: messages.tooManyDevices,
    })
    if (refusal) return { ok: false, refusal }
    const [device] = await tx
      .insert(devices)
      .values({ storeId, name, createdAt: now })
      .returning({ id: devices.id, name: devices.name })
    if (!device) throw new Error('device not added')
    const pairingCode = newPairingCode()
    const expiresAt = new Date(now.getTime() + pairingCodeTtlMs)
    await tx.insert(devicePairings).values({
      codeHash: secretHash(normalizedPairingCode(pairingCode) ?? ''),
      deviceId: device.id,
      expiresAt,
    })
    return { ok: true, ...device, pairingCode, expiresAt }
  })
}

export type Paired =
  | { ok: true; deviceId: number; storeId: number; key: string }
  | { ok: false; reason: 'code' }
  | { ok: false; reason: 'limit'; refusal: Refusal }

/**
 * Trades a pairing code for the device's key. The code is deleted as it is used (one statement: of two
 * concurrent uses one finds it), and the attempt is counted against the client address whatever the
 * outcome, in its own transaction, so a wrong code cannot undo its count.
 */
export async function pairDevice(
  db: Db,
  { code, client, now, perHour }: { code: string; client: string; now: Date; perHour: number },
): Promise<Paired> {
  const limit = { key: `pair:${client}`, limit: perHour, message: messages.tooManyPairings }
  const refusal = await db.transaction((tx) => take(tx, now, limit))
  if (refusal) return { ok: false, reason: 'limit', refusal }
  const normalized = normalizedPairingCode(code)
  if (!normalized) return { ok: false, reason: 'code' }
  return db.transaction(async (tx): Promise<Paired> => {
    const [pairing] = await tx
      .delete(devicePairings)
      .where(eq(devicePairings.codeHash, secretHash(normalized)))
      .returning({ deviceId: devicePairings.deviceId, expiresAt: devicePairings.expiresAt })
    if (!pairing || pairing.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'code' }
    const key = newDeviceKey()
    const [device] = await tx
      .update(devices)
      .set({ keyHash: secretHash(key), pairedAt: now })
      .where(
        sql`${devices.id} = ${pairing.deviceId} and ${devices.revokedAt} is null and ${devices.keyHash} is null`,
      )
      .returning({ storeId: devices.storeId })
    if (!device) return { ok: false, reason: 'code' }
    return { ok: true, deviceId: pairing.deviceId, storeId: device.storeId, key }
  })
}
