// The machine-silent rule's cost in the minute's evaluation (server/alerts/machine-silent.ts, decision
// 192), on PostgreSQL: STORES stores (2,000 unless given), 8 machines each (W1–W5, D1–D3), 29 days of a
// sale every 20 minutes 01:00–11:59 UTC taking the machines in turn; in one store in ten W3 sold nothing
// since 02:00 three days before. Prints the evaluations that read the shares (SHARE_READS_PER_EVALUATION stores
// each), then a steady minute: the machines' read, the visit of every store (the bound from the view's
// hourly counts) and the count query for the machines kept, with how many were kept and found silent.
//   DATABASE_URL=postgres://… npx tsx bench/machine-silent-cost.ts
import { sql } from 'drizzle-orm'
import { createPostgresDatabase } from '../scripts/postgres-database.ts'
import { noEquipment } from '../server/alerts/equipment-state.ts'
import { machineSilentRule, SHARE_READS_PER_EVALUATION } from '../server/alerts/machine-silent.ts'
import { openDatabase } from '../server/db/client.ts'
import { loadStoreView } from '../server/stores/view.ts'

const storeCount = Number(process.env.STORES ?? 2000)
const created = await createPostgresDatabase(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  'laundry_machine_bench',
)
const database = await openDatabase({ databaseUrl: created.url })
const db = database.db
try {
  const at = Date.parse('2026-03-16T06:00:00.000Z')
  let started = performance.now()
  await db.execute(sql`insert into stores (name) select '매장' || i from generate_series(1, ${storeCount}) i`)
  await db.execute(sql`insert into usages (store_id, created_at, amount, machine)
    select * from (select s.id, t, 3000,
        (array['W1','D1','W2','D2','W3','D3','W4','W5'])[1 + (extract(epoch from t)::bigint / 1200) % 8] as machine
      from stores s, generate_series(timestamptz '2026-02-15', timestamptz '2026-03-16T05:59:00Z', interval '20 minutes') t
      where extract(hour from t at time zone 'UTC') between 1 and 11) x
    where not (x.id % 10 = 0 and x.machine = 'W3' and x.t >= timestamptz '2026-03-13T02:00:00Z')`)
  await db.execute(sql`insert into machines (store_id, machine, reported_kind, first_seen_at, last_sale_at)
    select store_id, machine, case when machine like 'W%' then 'washer' else 'dryer' end, min(created_at), max(created_at)
    from usages group by store_id, machine`)
  await db.execute(sql`analyze`)
  const buildMs = performance.now() - started
  const view = await loadStoreView(db, at)
  const rule = machineSilentRule(db)
  const shareLoads: number[] = []
  for (let minute = 0; minute * SHARE_READS_PER_EVALUATION < storeCount; minute++) {
    started = performance.now()
    await rule.load(at + minute * 60_000)
    shareLoads.push(Math.round(performance.now() - started))
  }
  // Three steady minutes (the first one warms the code up).
  const steady: {
    machinesReadMs: number
    bucketsMs: number
    visitMs: number
    countMs: number
    silent: number
  }[] = []
  for (let n = 0; n < 3; n++) {
    const minute = at + (shareLoads.length + n) * 60_000
    started = performance.now()
    await rule.load(minute)
    const machinesReadMs = Math.round(performance.now() - started)
    // The view's buckets of each store (the evaluation has them already), apart from the rule's visit.
    let visitMs = 0
    started = performance.now()
    for (let id = 1; id <= storeCount; id++) {
      const [current, previous] = view.bucketsOf(id, minute)
      const visited = performance.now()
      rule.visit(
        { id, name: `매장${id}`, current, previous, devices: [], outages: [], equipment: noEquipment },
        minute,
      )
      visitMs += performance.now() - visited
    }
    const bucketsMs = Math.round(performance.now() - started - visitMs)
    visitMs = Math.round(visitMs)
    started = performance.now()
    const found = await rule.candidates(new Date(minute))
    steady.push({
      machinesReadMs,
      bucketsMs,
      visitMs,
      countMs: Math.round(performance.now() - started),
      silent: found.length,
    })
  }
  console.log(
    JSON.stringify({
      stores: storeCount,
      buildMs: Math.round(buildMs),
      shareReadsMs: shareLoads,
      steady,
    }),
  )
} finally {
  await database.close()
  await created.drop()
}
