// The scale target for the server's view of every store (10,000 stores, ≤ 5 s a minute, ≤ 500 MB;
// server/stores/view.ts, docs/product.md decisions 131–132): STORES stores (10,000 unless given) with 8 weeks of history each, made on a new database of
// the PostgreSQL of DATABASE_URL by generate_series (a sale every 30 minutes from 01:00 to 11:59 UTC,
// 24 a day; one store in ten stops at 01:50 today, so the quiet rule speaks), each with its owner.
// Prints, as the last line, JSON: the build and load times, the process's memory (RSS, and heap after
// a GC when run with --expose-gc), a minute's evaluation of every store by the app's figures (today
// against the usual, the month, the quiet rule; p50 and max over MINUTES minutes) and a sale's update
// of its store's view (p95 over 1,000 sales).
//   DATABASE_URL=postgres://… node --expose-gc --import tsx bench/alerts-scale.ts
import { sql } from 'drizzle-orm'
import { storeFigures } from '../domain/store-overview.ts'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { modelOf } from '../server/alerts/quiet.ts'
import { openDatabase, queryRows } from '../server/db/client.ts'
import { loadStoreView } from '../server/stores/view.ts'

const storeCount = Number(process.env.STORES ?? 10_000)
const minutes = Number(process.env.MINUTES ?? 5)
const mb = (bytes: number) => Math.round(bytes / 2 ** 20)
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}
const gc = (globalThis as { gc?: () => void }).gc

const created = await createPostgresDatabase(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  'laundry_bench',
)
const database = await openDatabase({ databaseUrl: created.url })
const db = database.db
try {
  const now = Date.parse('2026-03-16T11:00:00.000Z')
  let started = performance.now()
  await db.execute(sql`insert into stores (name) select '매장' || i from generate_series(1, ${storeCount}) i`)
  await db.execute(
    sql`insert into users (phone, name) select '010' || lpad(i::text, 8, '0'), '사장' || i from generate_series(1, ${storeCount}) i`,
  )
  await db.execute(sql`insert into memberships (user_id, store_id, role)
    select u.id, s.id, 'owner' from users u join stores s on s.name = '매장' || substr(u.phone, 4)::int`)
  // A throwaway database: no WAL for the records, no unique indexes the view does not read, and no
  // triggers (the revisions and the changes log, which the view does not read either) while inserting.
  // The records are made store after store (so each store's rows lie together on disk, as a store's
  // history mostly does) with their ids given, into a table without indexes; the primary key and the
  // index the view reads are built once at the end (a sort, instead of 12.7 million inserts into
  // B-trees larger than the database's cache: 182-260 s before, decision 138).
  await db.execute(sql`alter table usages set unlogged`)
  await db.execute(sql`alter table usages drop constraint usages_store_source`)
  await db.execute(sql`drop index usages_device_sale`)
  await db.execute(sql`drop index usages_store_created`)
  await db.execute(sql`alter table usages drop constraint usages_pkey`)
  const slots = sql`(select count(*) from generate_series(timestamptz '2026-01-18', timestamptz '2026-03-16T10:59:00Z', interval '30 minutes'))`
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`)
    await tx.execute(sql`insert into usages (id, store_id, created_at, amount) overriding system value
      select (s.i - 1) * n.slots + t.k, s.i, t.at, 3000
      from ${slots} as n(slots), (select id as i from stores order by id) s,
        lateral (select k, at from generate_series(timestamptz '2026-01-18', timestamptz '2026-03-16T10:59:00Z', interval '30 minutes')
          with ordinality as g(at, k)) t
      where extract(hour from t.at at time zone 'UTC') between 1 and 11
        and (s.i % 10 <> 0 or t.at < timestamptz '2026-03-16T02:00:00Z')`)
  })
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local maintenance_work_mem = '512MB'`)
    await tx.execute(sql`alter table usages add constraint usages_pkey primary key (id)`)
    await tx.execute(sql`create index usages_store_created on usages (store_id, created_at)`)
  })
  await db.execute(sql`select setval(pg_get_serial_sequence('usages', 'id'), (select max(id) from usages))`)
  await db.execute(sql`analyze usages`)
  const [{ records } = { records: 0 }] = await queryRows<{ records: string | number }>(
    db,
    sql`select count(*) as records from usages`,
  )
  const buildMs = performance.now() - started

  started = performance.now()
  const view = await loadStoreView(db, now)
  const loadMs = performance.now() - started
  gc?.()
  const afterLoad = process.memoryUsage()

  // A minute's evaluation: every store's figures by the app's code, as the rules and the overview read them;
  // the quiet rule with the store's model kept by the rules (server/alerts/quiet.ts: at most
  // MODEL_BUILDS_PER_EVALUATION made a minute, so the first minutes after a start each make that many).
  const evaluations: number[] = []
  const ids = (await queryRows<{ id: number }>(db, sql`select id from stores order by id`)).map((row) =>
    Number(row.id),
  )
  let quiet = 0
  for (let minute = 0; minute < minutes; minute++) {
    const at = now + minute * 60_000
    const instant = new Date(at)
    started = performance.now()
    quiet = 0
    for (const id of ids) {
      const [current, previous] = view.bucketsOf(id, at)
      if (storeFigures(current, previous, instant, modelOf(id, current, previous, at))?.quiet) quiet++
    }
    evaluations.push(performance.now() - started)
  }

  // A sale: its store's view updated in place.
  const updates: number[] = []
  for (let i = 0; i < 1_000; i++) {
    const id = ids[(i * 7919) % ids.length] as number
    started = performance.now()
    view.apply(id, now + i * 1_000, 3000)
    updates.push(performance.now() - started)
  }
  // A sale as the server learns it: recorded (the triggers log it), then the view refreshed from the
  // changes log (every store-year's revision read, the moved ones' changes applied).
  const refreshes: number[] = []
  for (let i = 0; i < 20; i++) {
    const id = ids[(i * 104_729) % ids.length] as number
    await db.execute(
      sql`insert into usages (store_id, created_at, amount) values (${id}, ${new Date(now + 2_000_000 + i * 1_000).toISOString()}::timestamptz, 3000)`,
    )
    started = performance.now()
    await view.refresh()
    refreshes.push(performance.now() - started)
  }
  gc?.()
  const memory = process.memoryUsage()
  const result = {
    stores: storeCount,
    records: Number(records),
    buildMs: Math.round(buildMs),
    loadMs: Math.round(loadMs),
    viewMB: mb(view.bytes()),
    rssMB: mb(Math.max(memory.rss, afterLoad.rss)),
    heapMB: mb(memory.heapUsed),
    heapAfterGc: gc !== undefined,
    evaluationMs: { p50: Math.round(percentile(evaluations, 50)), max: Math.round(Math.max(...evaluations)) },
    quietStores: quiet,
    saleUpdateMs: { p95: Number(percentile(updates, 95).toFixed(4)) },
    saleRefreshMs: {
      p50: Number(percentile(refreshes, 50).toFixed(1)),
      p95: Number(percentile(refreshes, 95).toFixed(1)),
    },
  }
  console.error(
    `alerts at scale: ${result.stores} stores, ${result.records} records built in ${result.buildMs} ms, view loaded in ${result.loadMs} ms; RSS ${result.rssMB} MB, heap ${result.heapMB} MB; a minute's evaluation p50 ${result.evaluationMs.p50} ms, max ${result.evaluationMs.max} ms (${quiet} quiet); a sale's update p95 ${result.saleUpdateMs.p95} ms, refresh from the changes log p50 ${result.saleRefreshMs.p50} ms, p95 ${result.saleRefreshMs.p95} ms`,
  )
  console.log(JSON.stringify(result))
} finally {
  await database.close()
  await created.drop()
}
