// On PostgreSQL a commit is on disk before the answer, so an acknowledged sale is lost only when the
// database is put back from a backup. Then the operator starts a new generation (docs/operations.md,
// "What the embedded database promises") and the devices send again what they were acknowledged. Here:
// two instances on one PostgreSQL, four reference devices (device/client.ts, over HTTP, two on each)
// selling all along; a backup (pg_dump), more sales acknowledged, both instances stopped, the backup
// restored (pg_restore) and the generation changed, the instances started again: every sale fed is
// stored exactly once.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Sale } from '../../../device/batch.ts'
import { Device } from '../../../device/client.ts'
import { writeIdentity } from '../../../device/identity.ts'
import { newGenerationSql } from '../../../server/db/generation.ts'
import { createTestApp, postgresUrlOf, resetDatabase, type TestApp } from '../test-app.ts'
import { pairedDevice, storedSales, storeWithPeople } from './helpers.ts'

const env = { DEVICE_REQUESTS_PER_MINUTE: '100000' }
const root = mkdtempSync(path.join(tmpdir(), 'device-generation-'))
/** Owns the test database (closing it drops the database); not one of the instances the devices call. */
let holder: TestApp
const instances: TestApp[] = []
const devices: Device[] = []
let selling = true

beforeAll(async () => {
  holder = await createTestApp({ env })
  await resetDatabase(holder)
})
afterAll(async () => {
  selling = false
  for (const device of devices) device.stop()
  await Promise.all(devices.map((device) => device.start()))
  for (const device of devices) device.close()
  for (const instance of instances) await instance.close()
  await holder.close()
  rmSync(root, { recursive: true, force: true })
}, 60_000)

async function until(condition: () => boolean, what: string, ms = 60_000) {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not in ${ms} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

it('after a restore from a backup and a new generation, every acknowledged sale is stored once', async () => {
  const people = await storeWithPeople(holder)
  const url = postgresUrlOf(holder)
  const ports: number[] = []
  const startInstances = async () => {
    for (let n = 0; n < 2; n++) {
      const instance = await createTestApp({ env, sameDatabaseAs: holder })
      await instance.listen({ port: ports[n] ?? 0, host: '127.0.0.1' })
      ports[n] = (instance.server.address() as { port: number }).port
      instances[n] = instance
    }
  }
  const stopInstances = async () => {
    for (const instance of instances.splice(0)) await instance.close()
  }
  await startInstances()

  const serverIds: number[] = []
  for (let n = 0; n < 4; n++) {
    const paired = await pairedDevice(holder, people.storeId, people.owner, `단말기 ${n}`)
    serverIds.push(paired.deviceId)
    const dir = path.join(root, `device-${n}`)
    writeIdentity(dir, {
      server: `http://127.0.0.1:${ports[n % 2]}`,
      deviceId: paired.deviceId,
      storeId: paired.storeId,
      key: paired.key,
      pairedAt: new Date().toISOString(),
    })
    const device = new Device(dir, { heartbeatMs: 200, timeoutMs: 3_000, retry: { baseMs: 20, maxMs: 200 } })
    devices.push(device)
    void device.start()
  }

  const fed: string[] = []
  let paused = false
  let sequence = 0
  const sell = async (device: Device, n: number) => {
    while (selling) {
      if (!paused) {
        const at = Date.parse('2001-01-01T00:00:00.000Z') + sequence++ * 60_000
        const sale: Sale = { id: `p${n}-${sequence}`, createdAt: new Date(at).toISOString(), amount: 500 + n }
        expect(device.take([sale])).toHaveLength(1)
        fed.push(`${serverIds[n]} ${sale.id} ${sale.createdAt} ${sale.amount}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20))
    }
  }
  const sellers = devices.map((device, n) => sell(device, n))
  const moreSales = (count: number) => {
    const target = fed.length + count
    return until(() => fed.length >= target, `${count} more sales`)
  }
  const acknowledgedNow = async () => {
    paused = true
    await until(() => devices.every((device) => device.queue.length === 0), 'all delivered')
    paused = false
  }

  await moreSales(200)
  await acknowledgedNow()
  const backup = path.join(root, 'backup.dump')
  execFileSync('pg_dump', ['--format=custom', `--file=${backup}`, url])
  const before = devices[0]?.queue.generation
  expect(before).toBeDefined()

  // Acknowledged after the backup: lost by the restore below.
  await moreSales(200)
  await acknowledgedNow()
  const acknowledged = fed.length
  expect((await storedSales(holder, people.storeId)).length).toBe(acknowledged)

  // The instances stopped while the devices sell on; the backup restored; the generation changed.
  await stopInstances()
  execFileSync('pg_restore', [
    '--clean',
    '--if-exists',
    '--single-transaction',
    '--no-owner',
    `--dbname=${url}`,
    backup,
  ])
  expect((await storedSales(holder, people.storeId)).length).toBeLessThan(acknowledged)
  await holder.db.execute(sql.raw(newGenerationSql('restored from a backup')))
  await startInstances()

  await moreSales(100)
  await until(() => devices.every((device) => device.queue.generation !== before), 'every device saw it')
  selling = false
  await Promise.all(sellers)
  await until(() => devices.every((device) => device.queue.length === 0), 'all delivered')
  expect((await storedSales(holder, people.storeId)).sort()).toEqual(fed.sort())
}, 180_000)
