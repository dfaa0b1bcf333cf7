// The server's view of every store (GET /api/v0/stores/overview, decisions 97–99, 138): an owner with 30
// busy stores (40,000 records each over 13 months) on a new database of the PostgreSQL of DATABASE_URL,
// answered two ways: from the stores' years (no view: the first answer buckets 60 store-years, then
// unchanged answers, then the answer after one sale, one store-year rebuilt), and from the instance's
// view of every store as the alert rules keep it (loaded once, then answers, each refreshing the 30
// stores from the changes log first, and the answer after one sale). Prints one line each, and JSON
// as the last line (medians of ROUNDS answers, 10 unless given).
//   DATABASE_URL=postgres://… node --import tsx bench/overview.ts
import { sql } from 'drizzle-orm'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { addStore, addUser, grant } from '../server/db/accounts.ts'
import { openDatabase } from '../server/db/client.ts'
import { storeViews } from '../server/stores/view.ts'
import { storesOverview } from '../server/usage/overview.ts'

const rounds = Number(process.env.ROUNDS ?? 10)
const created = await createPostgresDatabase(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  'laundry_bench',
)
const database = await openDatabase({ databaseUrl: created.url })
const db = database.db
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const round1 = (n: number) => Math.round(n * 10) / 10
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
  await db.execute(sql`analyze usages`)
  let sales = 0
  const sale = () =>
    db.execute(
      sql`insert into usages (store_id, created_at, amount) values (${ids[sales++ % ids.length]}, ${new Date(now.getTime() - 60_000 + sales).toISOString()}::timestamptz, 4000)`,
    )
  async function measure(label: string, overview: ReturnType<typeof storesOverview>) {
    const time = async () => {
      const started = performance.now()
      const answer = await overview.overview(userId, now)
      return { ms: performance.now() - started, bytes: JSON.stringify(answer).length }
    }
    const first = await time()
    const unchanged: number[] = []
    for (let i = 0; i < rounds; i++) unchanged.push((await time()).ms)
    const afterSale: number[] = []
    for (let i = 0; i < rounds; i++) {
      await sale()
      afterSale.push((await time()).ms)
    }
    const result = {
      firstMs: round1(first.ms),
      unchangedMs: round1(median(unchanged)),
      afterSaleMs: round1(median(afterSale)),
      bytes: first.bytes,
    }
    console.error(
      `overview of 30 stores from ${label}: first ${result.firstMs} ms, unchanged ${result.unchangedMs} ms, after a sale ${result.afterSaleMs} ms (medians of ${rounds}); ${result.bytes} B of JSON`,
    )
    return result
  }
  const years = await measure('their years', storesOverview(db))
  const views = storeViews(db)
  const started = performance.now()
  await views.upToDate(now.getTime(), ids)
  const loadMs = Math.round(performance.now() - started)
  const view = await measure('the view of every store', storesOverview(db, { views }))
  console.error(`(the view of the 30 stores loaded in ${loadMs} ms)`)
  console.log(JSON.stringify({ stores: ids.length, records: 30 * 40_000, years, view, viewLoadMs: loadMs }))
} finally {
  await database.close()
  await created.drop()
}
