// The reference device against the real server (a child process on PGlite, demo data, the demo
// devices off): paired with a code the owner's call gave, killed with SIGKILL at random moments and
// started again; the store's usage then holds every sale fed exactly once. The sales are dated 2001,
// a year the demo data leaves empty, so the year's usage is exactly what the device delivered. They
// name their machine and payment method, and each tenth is a refund of a sale fed before it
// (docs/product.md §14): once the server is stopped, its database holds each as fed, the refunds with
// their sale's machine and method.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type RunningServer, runServer } from '../../scripts/run-server.ts'
import { openDatabase, queryRows } from '../../server/db/client.ts'
import { type FedSale, feedThroughKills, runDevice } from './child.ts'

const root = mkdtempSync(path.join(tmpdir(), 'device-real-'))
let server: RunningServer
let stopped = false
const owner = '01012345678'

beforeAll(async () => {
  mkdirSync(path.join(root, 'data'))
  server = await runServer({
    dataDir: path.join(root, 'data'),
    webDir: path.join(root, 'web'),
    // Heartbeats every half second here: the per-key limit is for real devices.
    env: { DEMO_LIVE: '0', DEVICE_REQUESTS_PER_MINUTE: '100000' },
  })
}, 180_000)
afterAll(async () => {
  if (!stopped) await server?.stop()
  rmSync(root, { recursive: true, force: true })
})

async function api<T>(method: string, url: string, body?: unknown, token?: string): Promise<T> {
  const response = await fetch(new URL(`/api/v0${url}`, server.url), {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`)
  return (response.status === 204 ? undefined : await response.json()) as T
}

test('killed at random moments against the real server, every sale is stored exactly once', async () => {
  const since = server.output().length
  await api('PUT', '/user/phone', { phone: owner })
  const code = await server.smsCode(owner, since)
  const { token } = await api<{ token: { access: string } }>('POST', '/user/sign', { phone: owner, code })
  const storeId = 3
  const added = await api<{ pairingCode: string }>(
    'POST',
    `/store/${storeId}/devices`,
    { name: '시험 단말기' },
    token.access,
  )
  const dir = path.join(root, 'device')
  const pairing = runDevice(['pair', added.pairingCode, '--dir', dir, '--server', server.url])
  expect(await pairing.exited).toBe(0)

  const start = Date.parse('2001-03-01T00:00:00.000Z')
  const methods = ['card', 'cash', 'coin', 'mobile', 'point', 'other']
  const sales: FedSale[] = Array.from({ length: 400 }, (_, n) => ({
    id: `real-${n}`,
    createdAt: new Date(start + n * 3_600_000).toISOString(),
    ...(n % 10 === 9
      ? { amount: -500, refundOf: `real-${n - 9}` }
      : { amount: 1000 + n, machine: `W${n % 7}`, method: methods[n % methods.length] as string }),
  }))
  const runs = await feedThroughKills(dir, server.url, sales, { kills: 4, maxRunMs: 1500 })
  expect(runs).toHaveLength(5)

  const { usages } = await api<{ usages: { createdAt: string; amount: number }[] }>(
    'GET',
    `/store/${storeId}/usage?year=2001`,
    undefined,
    token.access,
  )
  expect(usages.map((usage) => `${usage.createdAt} ${usage.amount}`).sort()).toEqual(
    sales.map((sale) => `${sale.createdAt} ${sale.amount}`).sort(),
  )
  const { devices } = await api<{ devices: { lastSaleAt: string | null; pending: number | null }[] }>(
    'GET',
    `/store/${storeId}/devices`,
    undefined,
    token.access,
  )
  expect(devices[0]?.lastSaleAt).toBe(sales.at(-1)?.createdAt)

  await server.stop()
  stopped = true
  const database = await openDatabase({ pgliteDir: path.join(root, 'data', 'pglite') })
  try {
    const rows = await queryRows<{ line: string }>(
      database.db,
      sql`select concat_ws(' ', device_sale_id, amount, machine, method, coalesce(refund_of, '-')) as line
          from usages where device_id is not null`,
    )
    const byId = new Map(sales.map((sale) => [sale.id, sale]))
    const expected = sales.map((sale) => {
      const original = sale.refundOf ? byId.get(sale.refundOf) : sale
      return `${sale.id} ${sale.amount} ${original?.machine} ${original?.method} ${sale.refundOf ?? '-'}`
    })
    expect(rows.map((row) => row.line).sort()).toEqual(expected.sort())
  } finally {
    await database.close()
  }
}, 180_000)
