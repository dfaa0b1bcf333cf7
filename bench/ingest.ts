// Sustained ingestion from devices (docs/product.md §11): 20 devices, each in its own store, each
// posting batches of 100 new sales (each naming its machine and method, each tenth a refund of a sale
// earlier in the batch: docs/product.md §14) back to back with a new Idempotency-Key, over real HTTP (loopback,
// keep-alive) to the real app on a fresh database: the embedded one in a temporary folder, or a new
// database on the PostgreSQL of DATABASE_URL. Two phases, each `BENCH_INGEST_SECONDS` (5) after 2 s of
// warm-up: paced at the target (each device a batch a second: 2,000 sales/s offered), then back to back
// (the most it takes). Prints one JSON line: sales a second and the batch's latency (p50, p99).
//   node --import tsx bench/ingest.ts            # PGlite
//   DATABASE_URL=postgres://… node --import tsx bench/ingest.ts
// The clients run in the server's process: their work is counted against the figures.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { buildApp } from '../server/app.ts'
import { readConfig } from '../server/config.ts'
import { addStore, addUser, grant } from '../server/db/accounts.ts'
import { openDatabase } from '../server/db/client.ts'
import { addDevice, pairDevice } from '../server/devices/pairing.ts'

const devices = 20
const methods = ['card', 'cash', 'coin', 'mobile', 'point', 'other']
const batchSize = 100
const warmUpMs = 2_000
const measureMs = Number(process.env.BENCH_INGEST_SECONDS ?? 5) * 1000

const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-bench-ingest-'))
const adminUrl = process.env.DATABASE_URL
const postgres = adminUrl ? await createPostgresDatabase(adminUrl, 'laundry_bench') : null
try {
  const database = await openDatabase(
    postgres ? { databaseUrl: postgres.url } : { pgliteDir: path.join(dataDir, 'pglite') },
  )
  const config = readConfig({
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web-app'),
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-01',
    DEVICE_REQUESTS_PER_MINUTE: '10000000',
  })
  const app = await buildApp({ config, database })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })

  await addUser(app.db, { phone: '01012345678', name: '김사장' })
  const keys: string[] = []
  for (let i = 0; i < devices; i++) {
    const storeId = await addStore(app.db, { name: `매장 ${i + 1}` })
    await grant(app.db, '01012345678', storeId, 'owner')
    const added = await addDevice(app.db, { storeId, name: `기기 ${i + 1}`, now: new Date(), perHour: 100 })
    if (!added.ok) throw new Error('device not added')
    const paired = await pairDevice(app.db, {
      code: added.pairingCode,
      client: 'bench',
      now: new Date(),
      perHour: 100,
    })
    if (!paired.ok) throw new Error('device not paired')
    keys.push(paired.key)
  }

  let batchNumber = 0
  /** One phase: each device posts batches every `intervalMs` (0: back to back), measured after a warm-up. */
  async function phase(intervalMs: number) {
    const started = Date.now()
    const measureFrom = started + warmUpMs
    const measureUntil = measureFrom + measureMs
    const latencies: number[] = []
    let sales = 0
    let errors = 0
    async function device(index: number) {
      const key = keys[index] as string
      // Paced devices start spread over the interval, as real ones would.
      let next = started + (intervalMs * index) / devices
      while (Date.now() < measureUntil) {
        const wait = next - Date.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
        next += intervalMs
        const batch = batchNumber++
        const at = Date.now()
        const body = JSON.stringify({
          sales: Array.from({ length: batchSize }, (_, i) =>
            // Each tenth a refund of a sale earlier in the batch (taking its machine and method).
            i % 10 === 9
              ? {
                  id: `${batch}-${i}`,
                  createdAt: new Date(at - 60_000 + i).toISOString(),
                  amount: -500,
                  refundOf: `${batch}-${i - 9}`,
                }
              : {
                  id: `${batch}-${i}`,
                  createdAt: new Date(at - 60_000 + i).toISOString(),
                  amount: 1000 + ((batch * 31 + i) % 50) * 100,
                  machine: `W${i % 12}`,
                  method: methods[i % methods.length],
                },
          ),
          sentAt: new Date(at).toISOString(),
        })
        const response = await fetch(`${base}/api/v0/device/sales`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'idempotency-key': `b${batch}`,
            'content-type': 'application/json',
          },
          body,
        })
        const answer = (await response.json()) as { accepted?: number }
        const done = Date.now()
        if (response.status !== 200 || answer.accepted !== batchSize) errors++
        if (at >= measureFrom && done <= measureUntil) {
          latencies.push(done - at)
          sales += answer.accepted ?? 0
        }
      }
    }
    await Promise.all(Array.from({ length: devices }, (_, i) => device(i)))
    latencies.sort((a, b) => a - b)
    const percentile = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0
    return {
      batches: latencies.length,
      salesPerSecond: Math.round(sales / (measureMs / 1000)),
      p50Ms: percentile(50),
      p99Ms: percentile(99),
      errors,
    }
  }
  // At the target's rate (20 devices, a batch of 100 a second each: 2,000 sales/s), then as fast as
  // they can (each device posts its next batch as soon as the last is answered).
  const paced = await phase(1000)
  const flat = await phase(0)
  await app.close()
  console.log(
    JSON.stringify({
      database: postgres ? 'postgres' : 'pglite',
      devices,
      batchSize,
      seconds: measureMs / 1000,
      paced,
      flat,
    }),
  )
} finally {
  await postgres?.drop()
  rmSync(dataDir, { recursive: true, force: true })
}
