// Every acknowledged sale survives the embedded database going back in time (docs/operations.md, "What
// the embedded database promises"). The real server (a child process on PGlite) and three reference
// devices (device/client.ts, over HTTP) that sell all along: a snapshot is taken, more sales are
// acknowledged, the older snapshot is restored; then the server is killed and its data folder put back
// to an older state with its in-use mark left, as a power cut leaves the files that had not reached the
// disk. Each time the devices see a new generation and send again what they were acknowledged; at the
// end the database holds every sale fed exactly once. Sales are dated 2001, alone in that year.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { extract as extractTar } from 'tar'
import { afterAll, expect, test } from 'vitest'
import type { Sale } from '../../device/batch.ts'
import { Device, pair } from '../../device/client.ts'
import { type RunningServer, runServer } from '../../scripts/run-server.ts'
import { addStore, addUser, grant } from '../../server/db/accounts.ts'
import { openDatabase, queryRows } from '../../server/db/client.ts'
import { embeddedFolderName } from '../../server/db/data-names.ts'
import { inUseMarker } from '../../server/db/generation.ts'
import { restoreSnapshot } from '../../server/db/snapshot-restore.ts'
import { listSnapshots } from '../../server/db/snapshots.ts'

const root = mkdtempSync(path.join(tmpdir(), 'device-restore-'))
const dataDir = path.join(root, 'data')
const pgliteDir = path.join(dataDir, embeddedFolderName)
const snapshotDir = path.join(dataDir, 'snapshots')
const owner = '01012345678'
let server: RunningServer | undefined
const devices: Device[] = []

let selling = true
afterAll(async () => {
  selling = false
  for (const device of devices) device.stop()
  await Promise.all(devices.map((device) => device.start()))
  for (const device of devices) device.close()
  await server?.stop()
  rmSync(root, { recursive: true, force: true })
}, 120_000)

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not in ${ms} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Every device sale the database holds, as `device id createdAt amount`, sorted. */
async function storedSales(): Promise<string[]> {
  const database = await openDatabase({ pgliteDir, snapshotDir })
  try {
    const rows = await queryRows<{ line: string }>(
      database.db,
      sql`select device_id || ' ' || device_sale_id || ' ' || to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ' ' || amount as line
          from usages where device_id is not null`,
    )
    return rows.map((row) => row.line).sort()
  } finally {
    await database.close()
  }
}

test('a restored snapshot and a power cut of the embedded database lose no acknowledged sale', async () => {
  // The owner and the store, before the server starts (it holds the database while it runs).
  mkdirSync(dataDir)
  const setup = await openDatabase({ pgliteDir, snapshotDir })
  await addUser(setup.db, { phone: owner, name: '김사장' })
  const storeId = await addStore(setup.db, { name: '역삼점' })
  await grant(setup.db, owner, storeId, 'owner')
  await setup.close()

  const began = Date.now()
  const phase = (what: string) => console.log(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`)
  const port = await freePort()
  const start = async () => {
    server = await runServer({
      dataDir,
      webDir: path.join(root, 'web'),
      env: { PORT: String(port), SEED_DEMO: '0', DEVICE_REQUESTS_PER_MINUTE: '100000' },
    })
  }
  const stop = async () => {
    await server?.stop()
    server = undefined
  }
  await start()
  phase('server started')
  const url = `http://127.0.0.1:${port}`
  const call = async <T>(method: string, to: string, body: unknown, token?: string) => {
    const response = await fetch(new URL(`/api/v0${to}`, url), {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    })
    if (!response.ok) throw new Error(`${method} ${to}: ${response.status} ${await response.text()}`)
    return (await response.json()) as T
  }
  const since = server?.output().length ?? 0
  await call('PUT', '/user/phone', { phone: owner })
  const code = await server?.smsCode(owner, since)
  const { token } = await call<{ token: { access: string } }>('POST', '/user/sign', { phone: owner, code })

  const log: string[] = []
  const serverIds: number[] = []
  for (let n = 0; n < 3; n++) {
    const added = await call<{ pairingCode: string }>(
      'POST',
      `/store/${storeId}/devices`,
      { name: `단말기 ${n}` },
      token.access,
    )
    const dir = path.join(root, `device-${n}`)
    serverIds.push((await pair(dir, url, added.pairingCode)).deviceId)
    const device = new Device(dir, {
      heartbeatMs: 300,
      timeoutMs: 3_000,
      retry: { baseMs: 50, maxMs: 400 },
      batchSales: 50,
      log: (line) => log.push(`device ${n}: ${line}`),
    })
    devices.push(device)
    void device.start()
  }

  // The devices sell all along, a sale each every 40–120 ms, until told to stop.
  const fed: string[] = []
  let paused = false
  let sequence = 0
  const sell = async (device: Device, n: number) => {
    while (selling) {
      if (paused) {
        await new Promise((resolve) => setTimeout(resolve, 10))
        continue
      }
      const at = Date.parse('2001-01-01T00:00:00.000Z') + sequence++ * 60_000
      const sale: Sale = { id: `d${n}-${sequence}`, createdAt: new Date(at).toISOString(), amount: 1000 + n }
      expect(device.take([sale])).toHaveLength(1)
      fed.push(`${n} ${sale.id} ${sale.createdAt} ${sale.amount}`)
      await new Promise((resolve) => setTimeout(resolve, 40 + Math.random() * 80))
    }
  }
  const sellers = devices.map((device, n) => sell(device, n))
  /** Every sale fed so far acknowledged: the devices stop selling a moment, until their queues are empty. */
  const acknowledgedNow = async () => {
    paused = true
    await until(() => devices.every((device) => device.queue.length === 0), 'all delivered')
    paused = false
  }
  const sold = () => fed.length
  const moreSales = async (count: number) => {
    const target = sold() + count
    await until(() => sold() >= target, `${count} more sales`)
  }

  // 1. Sales, then a clean stop: its last snapshot is the one restored below.
  await moreSales(60)
  phase('sold')
  await stop()
  phase('stopped')
  const [older] = listSnapshots(snapshotDir)
  expect(older).toBeDefined()
  await start()
  phase('started again')
  await moreSales(60)
  await acknowledgedNow()
  phase('acknowledged before the restore')
  const acknowledgedBeforeRestore = sold()
  const generationBefore = devices[0]?.queue.generation
  expect(generationBefore).toBeDefined()
  expect(devices.every((device) => device.queue.generation === generationBefore)).toBe(true)

  // 2. The older snapshot restored while the devices go on selling.
  await stop()
  await restoreSnapshot(older?.file ?? '', pgliteDir)
  phase('restored')
  await start()
  phase('started after the restore')
  await moreSales(30)
  await until(
    () => devices.every((device) => device.queue.generation !== generationBefore),
    'every device saw the restore',
  )
  await acknowledgedNow()
  phase('resent after the restore')
  const generationRestored = devices[0]?.queue.generation
  expect(fed.length).toBeGreaterThan(acknowledgedBeforeRestore)

  // 3. More sales acknowledged, then a power cut: the server dies and its folder holds only what had
  // reached the disk (here the older snapshot's files again), its in-use mark included.
  await moreSales(60)
  await acknowledgedNow()
  phase('acknowledged before the power cut')
  const killed = server
  server = undefined
  await killed?.kill()
  expect(existsSync(inUseMarker(pgliteDir))).toBe(true)
  rmSync(pgliteDir, { recursive: true })
  mkdirSync(pgliteDir, { mode: 0o700 })
  await extractTar({ file: older?.file ?? '', cwd: pgliteDir })
  await start()
  phase('started after the power cut')
  await moreSales(30)
  await until(
    () => devices.every((device) => device.queue.generation !== generationRestored),
    'every device saw the unclean start',
  )

  selling = false
  await Promise.all(sellers)
  await acknowledgedNow()
  phase('resent after the power cut')
  await stop()

  const stored = await storedSales()
  // Stored under the server's device ids; fed under the devices' order.
  const expected = fed.map((line) => {
    const [n, ...rest] = line.split(' ')
    return `${serverIds[Number(n)]} ${rest.join(' ')}`
  })
  expect(stored).toEqual(expected.sort())
  const resent = log.filter((line) => line.includes('sending again'))
  expect(resent.length).toBeGreaterThanOrEqual(6)
  console.log(`${fed.length} sales, all stored once; ${resent.join('; ')}`)
}, 600_000)
