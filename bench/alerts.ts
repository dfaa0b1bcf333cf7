// What a minute's alert evaluation costs (server/alerts/evaluate.ts, decision 108): STORES stores (500
// unless given) with 8 weeks of a steady rhythm (66 sales a day), each with its owner, one in ten gone
// quiet, on a new database of the PostgreSQL of DATABASE_URL. Prints the first evaluation (every
// store-year bucketed, the quiet alerts recorded), the next minutes (nothing changed), a minute after
// one sale, and the process's memory.
//   DATABASE_URL=postgres://… STORES=500 node --import tsx bench/alerts.ts

import { sql } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { createAlertRules } from '../server/alerts/evaluate.ts'
import { addStore, addUser, grant } from '../server/db/accounts.ts'
import { openDatabase } from '../server/db/client.ts'
import { createPush } from '../server/push/deliver.ts'

const stores = Number(process.env.STORES ?? 500)
const created = await createPostgresDatabase(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
)
const database = await openDatabase({ databaseUrl: created.url })
const db = database.db
const log = { warn() {}, info() {}, error() {} } as unknown as FastifyBaseLogger
try {
  const now = new Date('2026-03-16T05:00:00.000Z')
  const ids: number[] = []
  for (let i = 0; i < stores; i++) {
    const phone = `010${String(10_000_000 + i).slice(-8)}`
    await addUser(db, { phone, name: `사장${i}` })
    const id = await addStore(db, { name: `매장${i}` })
    await grant(db, phone, id, 'owner')
    ids.push(id)
  }
  // 8 weeks of sales every 10 minutes, 01:00–11:50 UTC; one store in ten stops at 01:50 today.
  await db.execute(sql`insert into usages (store_id, created_at, amount)
    select s.id, t, 3000 from stores s,
      generate_series(timestamptz '2026-01-18', timestamptz '2026-03-16T04:59:00Z', interval '10 minutes') t
    where extract(hour from t at time zone 'UTC') between 1 and 11
      and (s.id % 10 <> 0 or t < timestamptz '2026-03-16T02:00:00Z')`)
  const push = createPush({
    db,
    transport: async () => ({ send: async () => ({ statusCode: 201 }) }),
    now: () => now,
    log,
  })
  const rules = createAlertRules({
    db,
    push,
    log,
  })
  let at = now.getTime()
  const minute = async (label: string) => {
    const report = await rules.evaluate(new Date(at))
    at += 60_000
    console.log(
      label,
      Math.round(report.ms),
      'ms',
      'stores',
      report.stores,
      'sent',
      report.sent,
      'rss',
      Math.round(process.memoryUsage().rss / 2 ** 20),
      'MB',
    )
  }
  await minute('first minute (every store-year bucketed)')
  await minute('next minute (nothing changed)')
  await minute('next minute')
  await db.execute(
    sql`insert into usages (store_id, created_at, amount) values (${ids[3]}, ${new Date(at - 30_000).toISOString()}::timestamptz, 4000)`,
  )
  await minute('a minute after one sale')
} finally {
  await database.close()
  await created.drop()
}
