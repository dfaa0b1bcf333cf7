// The server's view of every store (GET /api/v0/stores/overview, decisions 97–99): an owner with 30
// busy stores (40,000 records each over 13 months) on a new database of the PostgreSQL of DATABASE_URL:
// the first answer (60 store-years bucketed), answers with nothing changed, and the answer after one
// sale (one store-year rebuilt). Prints one line each.
//   DATABASE_URL=postgres://… node --import tsx bench/overview.ts
import { sql } from 'drizzle-orm'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { addStore, addUser, grant } from '../server/db/accounts.ts'
import { openDatabase } from '../server/db/client.ts'
import { storesOverview } from '../server/usage/overview.ts'

const created = await createPostgresDatabase(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
)
const database = await openDatabase({ databaseUrl: created.url })
const db = database.db
try {
  const userId = await addUser(db, { phone: '01012345678', name: '김사장' })
  const now = new Date('2026-11-20T05:30:00.000Z')
  const ids: number[] = []
  for (let i = 0; i < 30; i++) {
    const id = await addStore(db, { name: `매장${i}` })
    await grant(db, '01012345678', id, 'owner')
    ids.push(id)
    // ~ 40,000 records over the last 13 months (a busy store), spread at random.
    await db.execute(sql`insert into usages (store_id, created_at, amount)
      select ${id}, timestamptz '2025-10-20' + random() * (timestamptz '2026-11-20T05:29:00Z' - timestamptz '2025-10-20'), (5 + floor(random() * 60))::int * 100
      from generate_series(1, 40000)`)
  }
  const overview = storesOverview(db)
  const time = async (label: string) => {
    const started = performance.now()
    const answer = await overview.overview(userId, now)
    console.log(
      label,
      Math.round(performance.now() - started),
      'ms',
      'builds',
      overview.stats.builds,
      'bytes',
      JSON.stringify(answer).length,
    )
  }
  await time('cold (60 store-years bucketed)')
  await time('warm (nothing changed)')
  await time('warm again')
  await db.execute(
    sql`insert into usages (store_id, created_at, amount) values (${ids[3]}, '2026-11-20T05:29:30Z', 4000)`,
  )
  await time('after one sale')
} finally {
  await database.close()
  await created.drop()
}
