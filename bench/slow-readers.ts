// The server's memory while one sign-in's clients ask a busy year's changes from revision 0 and read
// nothing (docs/product.md decisions 157–159): 40 such answers over loopback TCP, each on a connection
// of its own. Prints the answers' statuses and the process's RSS and heap before, while they are held
// unread, and after their clients went away.
//   node --import tsx bench/slow-readers.ts [records=80000] [answers=40]
// Measured 2026-12-01 (2 shared cores, in-memory PGlite): before decisions 157–159 all 40 were 200 and
// held +444 MB RSS (+257 MB heap and external); since, 8 are 200 and 32 are 429, +98 MB RSS (+84 MB).
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { sql } from 'drizzle-orm'
import { buildApp } from '../server/app.ts'
import { readConfig } from '../server/config.ts'
import { addStore, addUser, grant } from '../server/db/accounts.ts'
import { openDatabase } from '../server/db/client.ts'

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void
const records = Number(process.argv[2] ?? 80_000)
const answers = Number(process.argv[3] ?? 40)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const memory = async () => {
  for (let i = 0; i < 3; i++) {
    gc()
    await sleep(100)
  }
  const usage = process.memoryUsage()
  return {
    rssMb: Math.round(usage.rss / 1e5) / 10,
    heapMb: Math.round((usage.heapUsed + usage.external) / 1e5) / 10,
  }
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-slow-readers-'))
const config = readConfig({
  DATA_DIR: dataDir,
  WEB_DIR: path.join(dataDir, 'no-web-app'),
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-01',
})
// In memory, as the measurement ran (PGlite's own memory is in both figures alike).
const database = await openDatabase({ pgliteDir: null })
const app = await buildApp({ config, database, alertsEveryMs: 0 })
try {
  const ownerId = await addUser(app.db, { phone: '01012345678', name: '김사장' })
  const storeId = await addStore(app.db, { name: '역삼점' })
  await grant(app.db, '01012345678', storeId, 'owner')
  const owner = await app.tokens.start(ownerId)
  await app.db.execute(
    sql`insert into usages (store_id, created_at, amount)
        select ${storeId}, timestamptz '2026-01-01T00:00:00Z' + g * (interval '1 year' / ${records}), 1000 + g % 7
        from generate_series(1, ${records}) as g`,
  )
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `${address}/api/v0/store/${storeId}/usage/changes?year=2026&after=0`
  const before = await memory()
  const requests: http.ClientRequest[] = []
  const statuses = new Map<number, number>()
  for (let i = 0; i < answers; i++) {
    const request = http.get(url, { agent: false, headers: { authorization: `Bearer ${owner.access}` } })
    request.on('error', () => {})
    requests.push(request)
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve))
    response.pause()
    statuses.set(response.statusCode ?? 0, (statuses.get(response.statusCode ?? 0) ?? 0) + 1)
  }
  await sleep(1_000)
  const holding = await memory()
  for (const request of requests) request.destroy()
  await sleep(1_000)
  const after = await memory()
  console.log(`${answers} unread after=0 answers of a year of ${records} records, one sign-in:`)
  console.log(`statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
  console.log(
    `RSS ${before.rssMb} -> ${holding.rssMb} -> ${after.rssMb} MB (before, held unread, gone): +${Math.round(holding.rssMb - before.rssMb)} MB`,
  )
  console.log(
    `heap+external ${before.heapMb} -> ${holding.heapMb} -> ${after.heapMb} MB: +${Math.round(holding.heapMb - before.heapMb)} MB`,
  )
} finally {
  await app.close()
  rmSync(dataDir, { recursive: true, force: true })
}
