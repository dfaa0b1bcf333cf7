// The machines answer and the tax export (docs/product.md §14) on the busiest store: 12 machines and a
// year of about 36,000 sales (about 3,000 a month, 1 % refunds, every payment method), written straight
// into a fresh database: the embedded one in a temporary folder, or a new database on the PostgreSQL of
// DATABASE_URL. Over real HTTP (loopback) to the real app: the month's answer the first time after a
// start (cold, after the profile call an app makes first), the first time for another month, then warm (median of 20); its bytes plain and gzip;
// the tax export of the whole year, cold and warm, and its bytes. Prints one JSON line.
//   node --import tsx bench/machines.ts            # PGlite
//   DATABASE_URL=postgres://… node --import tsx bench/machines.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { paymentMethods } from '../domain/machines.ts'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { buildApp } from '../server/app.ts'
import { readConfig } from '../server/config.ts'
import { addStore, addUser, grant } from '../server/db/accounts.ts'
import { openDatabase } from '../server/db/client.ts'
import { machines, usages } from '../server/db/schema.ts'

const year = 2025
const salesPerMonth = 3_000
const names = [
  ...Array.from({ length: 8 }, (_, i) => `W${i + 1}`),
  ...Array.from({ length: 4 }, (_, i) => `D${i + 1}`),
]

/** A seeded generator (mulberry32), so every run writes the same records. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

function timed(url: string, headers: Record<string, string>) {
  return new Promise<{ ms: number; status: number; body: Buffer }>((resolve, reject) => {
    const started = performance.now()
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          ms: performance.now() - started,
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks),
        }),
      )
    })
      .on('error', reject)
      .end()
  })
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
const round = (ms: number) => Math.round(ms * 10) / 10

const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-bench-machines-'))
const adminUrl = process.env.DATABASE_URL
const postgres = adminUrl ? await createPostgresDatabase(adminUrl, 'laundry_bench') : null
try {
  const database = await openDatabase(
    postgres ? { databaseUrl: postgres.url } : { pgliteDir: path.join(dataDir, 'pglite') },
  )
  const userId = await addUser(database.db, { phone: '01012345678', name: '김사장' })
  const storeId = await addStore(database.db, { name: '바쁜 매장' })
  await grant(database.db, '01012345678', storeId, 'owner')
  await database.db.insert(machines).values(
    names.map((machine) => ({
      storeId,
      machine,
      reportedKind: machine.startsWith('W') ? 'washer' : 'dryer',
      state: 'idle',
      firstSeenAt: new Date(Date.UTC(year, 0, 1)),
    })),
  )
  const next = random(173)
  let records = 0
  for (let month = 0; month < 12; month++) {
    const start = Date.UTC(year, month, 1)
    const span = Date.UTC(year, month + 1, 1) - start
    const rows = Array.from({ length: salesPerMonth }, () => {
      const refund = next() < 0.01
      const amount = (Math.floor(next() * 8) + 3) * 500
      return {
        storeId,
        createdAt: new Date(start + Math.floor(next() * span)),
        amount: refund ? -amount : amount,
        sourceId: `b${records++}`,
        machine: names[Math.floor(next() * names.length)] ?? null,
        method: next() < 0.05 ? null : (paymentMethods[Math.floor(next() * paymentMethods.length)] ?? null),
      }
    })
    for (let i = 0; i < rows.length; i += 1_000)
      await database.db.insert(usages).values(rows.slice(i, i + 1_000))
  }

  const config = readConfig({
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web-app'),
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-01',
  })
  const app = await buildApp({ config, database, alertsEveryMs: 0 })
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const access = (await app.tokens.start(userId)).access
    const auth = { authorization: `Bearer ${access}` }
    const monthUrl = (month: number) => `${base}/api/v0/store/${storeId}/machines?year=${year}&month=${month}`
    const taxUrl = `${base}/api/v0/store/${storeId}/export/tax.csv?from=${year}-01-01&to=${year}-12-31`
    const ok = <T extends { status: number }>(answer: T) => {
      if (answer.status !== 200) throw new Error(`answered ${answer.status}`)
      return answer
    }
    // The server's own first-request costs (the token's first check, the first statements) are paid by
    // the profile call, the app's first after a sign-in; then the machines answer's first, cold.
    const profileFirst = ok(await timed(`${base}/api/v0/user`, auth))
    const cold = ok(await timed(monthUrl(6), auth))
    const otherMonth = ok(await timed(monthUrl(7), auth))
    const warm: number[] = []
    for (let i = 0; i < 20; i++) warm.push(ok(await timed(monthUrl(6), auth)).ms)
    const gzip = ok(await timed(monthUrl(6), { ...auth, 'accept-encoding': 'gzip' }))
    const answer = JSON.parse(cold.body.toString()) as { machines: unknown[] }
    const taxCold = ok(await timed(taxUrl, auth))
    const taxWarm: number[] = []
    for (let i = 0; i < 5; i++) taxWarm.push(ok(await timed(taxUrl, auth)).ms)
    console.log(
      JSON.stringify({
        database: postgres ? 'postgres' : 'pglite',
        records,
        machines: answer.machines.length,
        monthSales: salesPerMonth,
        profileFirstMs: round(profileFirst.ms),
        answer: {
          coldMs: round(cold.ms),
          otherMonthColdMs: round(otherMonth.ms),
          warmMs: round(median(warm)),
          bytes: cold.body.length,
          // What the server sent for Accept-Encoding: gzip (it compresses from 1 kB), and gzip's size of
          // the answer whatever the threshold.
          wireGzipBytes: gzip.body.length,
          gzipBytes: gzipSync(cold.body).length,
        },
        taxYear: {
          coldMs: round(taxCold.ms),
          warmMs: round(median(taxWarm)),
          bytes: taxCold.body.length,
          gzipBytes: gzipSync(taxCold.body).length,
        },
      }),
    )
  } finally {
    await app.close()
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
  await postgres?.drop()
}
