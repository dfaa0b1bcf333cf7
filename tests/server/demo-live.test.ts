// The demo is alive: the demo stores' devices pair through the real calls and their sales land in the
// store's records, as any device's do, each naming its machine and method, and its heartbeats report the
// store's machines (docs/product.md §14). Time runs fast for them here, so sales come within seconds.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eq, isNotNull } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { paymentMethods } from '../../domain/machines.ts'
import { addStore, addUser, grant } from '../../server/db/accounts.ts'
import { devices, machines, usages } from '../../server/db/schema.ts'
import { demoAccounts, demoStores } from '../../server/db/seed.ts'
import { demoDeviceName, startDemoDevices } from '../../server/demo-live.ts'
import { createTestApp, type TestApp, until } from './test-app.ts'

let app: TestApp
let url: string
let storeId: number
const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-demo-live-'))

beforeAll(async () => {
  app = await createTestApp()
  url = await app.listen({ port: 0, host: '127.0.0.1' })
  await addUser(app.db, { phone: demoAccounts.owner, name: '김사장' })
  // Not the busiest store, whose device falls silent in the afternoon.
  storeId = await addStore(app.db, { name: demoStores[1]?.name ?? '' })
  await grant(app.db, demoAccounts.owner, storeId, 'owner')
})
afterAll(async () => {
  await app.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function deviceSales() {
  return app.db
    .select({
      deviceId: usages.deviceId,
      amount: usages.amount,
      machine: usages.machine,
      method: usages.method,
    })
    .from(usages)
    .where(isNotNull(usages.deviceId))
}

it("a demo store's device pairs through the calls and its sales arrive in the store's records; a restart keeps the device", async () => {
  const demo = await startDemoDevices({ db: app.db, dataDir, url, log: app.log, speed: 5000 })
  try {
    await until(async () => (await deviceSales()).length >= 3, 20_000)
  } finally {
    await demo.stop()
  }
  const added = await app.db.select().from(devices).where(eq(devices.storeId, storeId))
  expect(added).toHaveLength(1)
  expect(added[0]?.name).toBe(demoDeviceName)
  expect(added[0]?.pairedAt).not.toBeNull()
  const sales = await deviceSales()
  expect(sales.every((sale) => sale.deviceId === added[0]?.id)).toBe(true)
  // A sale, or now and then a refund of one (negative).
  expect(sales.every((sale) => Math.abs(sale.amount) >= 3000 && Math.abs(sale.amount) <= 8000)).toBe(true)
  const names = ['W1', 'W2', 'W3', 'W4', 'D1', 'D2', 'D3']
  expect(sales.every((sale) => names.includes(sale.machine ?? ''))).toBe(true)
  expect(sales.every((sale) => (paymentMethods as readonly unknown[]).includes(sale.method))).toBe(true)

  // Its heartbeats name every machine of the store with its kind and state, running after a sale.
  const reported = await app.db
    .select({
      machine: machines.machine,
      kind: machines.reportedKind,
      state: machines.state,
      device: machines.deviceId,
    })
    .from(machines)
    .where(eq(machines.storeId, storeId))
  expect(reported.map((m) => m.machine).sort()).toEqual([...names].sort())
  for (const m of reported) {
    expect(m.kind).toBe(m.machine.startsWith('W') ? 'washer' : 'dryer')
    expect(['idle', 'running', 'error']).toContain(m.state)
    expect(m.device).toBe(added[0]?.id)
  }

  // Started again with the same folder, it goes on as the same device.
  const again = await startDemoDevices({ db: app.db, dataDir, url, log: app.log, speed: 5000 })
  const before = sales.length
  try {
    await until(async () => (await deviceSales()).length > before, 20_000)
    // A machine runs for its cycle (40 or 50 minutes, here a fraction of a second) after each sale.
    await until(async () => {
      const states = await app.db
        .select({ state: machines.state })
        .from(machines)
        .where(eq(machines.storeId, storeId))
      return states.some((m) => m.state === 'running')
    }, 20_000)
  } finally {
    await again.stop()
  }
  expect(await app.db.select().from(devices).where(eq(devices.storeId, storeId))).toHaveLength(1)
})
