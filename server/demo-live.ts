// The demo is alive: with demo data (and DEMO_LIVE not 0), each demo store gets a device that sells at
// that store's usual rhythm through the real calls: the reference device (device/) in this process, in
// its --simulate mode. The server adds the device and its pairing code in the database directly (as
// the owner's call would), then the device pairs over HTTP and keeps its key and queue in
// DATA_DIR/demo-devices/<store>. The busiest store's device falls silent every afternoon from 14:00 to
// 17:00 Korea time, so that the quiet-store warning can be seen. A demo device the owner revoked stays
// revoked (it is refused and stops); a new one is added at the next start.
import { randomUUID } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import { and, asc, eq, isNull } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import { Device, pair } from '../device/client.ts'
import { readIdentity } from '../device/identity.ts'
import { simulate } from '../device/simulate.ts'
import type { Db } from './db/client.ts'
import { devices, memberships, stores, users } from './db/schema.ts'
import { demoAccounts, demoStores } from './db/seed.ts'
import { addDevice } from './devices/pairing.ts'

export const demoDeviceName = '데모 단말기'
/** The busiest demo store's device is silent in these hours (Korea time), every day. */
export const demoSilentHours: [number, number] = [14, 17]

export async function startDemoDevices({
  db,
  dataDir,
  url,
  log,
  speed = 1,
}: {
  db: Db
  dataDir: string
  /** The server's own address. */
  url: string
  log: FastifyBaseLogger
  /** Time runs this much faster for the demo devices (a test that sees sales within seconds). */
  speed?: number
}): Promise<{ stop(): Promise<void> }> {
  const owned = await db
    .select({ id: stores.id, name: stores.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(stores, eq(stores.id, memberships.storeId))
    .where(and(eq(users.phone, demoAccounts.owner), eq(memberships.role, 'owner')))
    .orderBy(asc(stores.id))
  const running: { stop(): Promise<void> }[] = []
  for (const store of owned) {
    const plan = demoStores.find((demo) => demo.name === store.name)
    if (!plan) continue
    const dir = path.join(dataDir, 'demo-devices', String(store.id))
    try {
      const kept = readIdentity(dir)
      const [live] = kept
        ? await db
            .select({ id: devices.id })
            .from(devices)
            .where(
              and(eq(devices.id, kept.deviceId), eq(devices.storeId, store.id), isNull(devices.revokedAt)),
            )
        : []
      if (!live) {
        if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
        const added = await addDevice(db, {
          storeId: store.id,
          name: demoDeviceName,
          now: new Date(),
          perHour: 1000,
        })
        if (!added.ok) throw new Error('too many devices added to this store in the last hour')
        // Its own server, at the address it listens on (a LAN address with HOST set): no one else's wire.
        await pair(dir, url, added.pairingCode, { allowHttp: true })
      }
      const device = new Device(dir, {
        server: url,
        log: (line) => log.debug(`demo device of store ${store.id}: ${line}`),
      })
      const silent = plan === demoStores[0] ? demoSilentHours : undefined
      const sales = simulate({ perDay: plan.cyclesPerDay, speed, ...(silent ? { silent } : {}) }, (amount) =>
        device.take([{ id: randomUUID(), createdAt: new Date().toISOString(), amount }]),
      )
      const finished = device
        .start()
        .then((stopped) => {
          sales.stop()
          if (stopped.refused)
            log.warn(
              `demo device of store ${store.id} stopped: ${stopped.refused.status} ${stopped.refused.message}`,
            )
        })
        .finally(() => device.close())
      running.push({
        async stop() {
          sales.stop()
          device.stop()
          await finished.catch(() => {})
        },
      })
    } catch (error) {
      log.warn({ err: error }, `demo device of store ${store.id} not started`)
    }
  }
  if (running.length > 0)
    log.info(`demo devices selling live in ${running.length} store(s) (DEMO_LIVE=0 turns them off)`)
  return {
    /** Stops every demo device; resolves once none has a call in flight (then the server may close). */
    async stop() {
      await Promise.all(running.map((device) => device.stop()))
    },
  }
}
