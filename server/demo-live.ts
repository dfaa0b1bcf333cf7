// The demo is alive: with demo data (and DEMO_LIVE not 0), each demo store gets a device that sells at
// that store's usual rhythm through the real calls: the reference device (device/) in this process, in
// its --simulate mode. The server adds the device and its pairing code in the database directly (as
// the owner's call would), then the device pairs over HTTP and keeps its key and queue in
// DATA_DIR/demo-devices/<store>. Each sale names its machine and payment method (about once a week a
// refund of the sale before), and each heartbeat the store's machines (running for a cycle after a
// sale), its payment terminal and the payments that failed (docs/product.md §14). So that every mark
// can be seen, every day (Korea time): the busiest store's device falls silent 14:00–17:00 (the
// quiet-store warning) and its washer W3 is out of order 13:00–18:00 (error E21, selling nothing); the
// second store's payment terminal is down 15:10–15:30 (card payments fail, customers pay cash). A demo
// device the owner revoked stays revoked (it is refused and stops); a new one is added at the next start.
import { existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import { and, eq, isNull } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import { Device, pair } from '../device/client.ts'
import { readIdentity } from '../device/identity.ts'
import { type DailyWindow, type Rhythm, type StoreReport, simulate } from '../device/simulate.ts'
import { heartbeatMs } from '../domain/devices.ts'
import type { Db } from './db/client.ts'
import { devices, users } from './db/schema.ts'
import { demoAccounts, demoStores } from './db/seed.ts'
import { addDevice } from './devices/pairing.ts'
import { storesOf } from './store-access.ts'

export const demoDeviceName = '데모 단말기'
/** The busiest demo store's device is silent in these hours (Korea time), every day. */
export const demoSilentHours: [number, number] = [14, 17]
/** The busiest demo store's washer W3 is out of order every afternoon (Korea time), with error E21. */
export const demoOutOfOrder: NonNullable<Rhythm['outOfOrder']> = {
  machine: 'W3',
  window: [13 * 60, 18 * 60],
  code: 'E21',
}
/** The second demo store's payment terminal is down every day 15:10–15:30 (Korea time). */
export const demoTerminalDown: DailyWindow = [15 * 60 + 10, 15 * 60 + 30]

/** The demo store's rhythm and what goes wrong in it every day. */
function demoRhythm(index: number, perDay: number, speed: number): Rhythm {
  if (index === 0) return { perDay, speed, silent: demoSilentHours, outOfOrder: demoOutOfOrder }
  if (index === 1) return { perDay, speed, terminalDown: demoTerminalDown }
  return { perDay, speed }
}

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
  const [owner] = await db.select({ id: users.id }).from(users).where(eq(users.phone, demoAccounts.owner))
  const owned = owner ? (await storesOf(db, owner.id)).filter((store) => store.role === 'owner') : []
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
      let storeReport: () => StoreReport | undefined = () => undefined
      const device = new Device(dir, {
        server: url,
        log: (line) => log.debug(`demo device of store ${store.id}: ${line}`),
        storeReport: () => storeReport(),
        // A faster demo reports its machines more often (a cycle lasts 40 minutes divided by the speed).
        heartbeatMs: Math.max(1000, heartbeatMs / speed),
      })
      const sales = simulate(demoRhythm(demoStores.indexOf(plan), plan.cyclesPerDay, speed), (made) =>
        device.take(made),
      )
      storeReport = sales.report
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
