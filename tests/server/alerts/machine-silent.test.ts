// The machine-silent rule on the server (server/alerts/machine-silent.ts, docs/product.md §12): a dead
// washer while the other washers sell raises one alert, replaced under the same tag when it sells
// again; a store quiet as a whole raises none (that is the quiet rule's).
import { sql } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { queryRows } from '../../../server/db/client.ts'
import { storeWithPeople } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { sharedTestApp, testClock } from '../test-app.ts'
import { alertRows, pushEnv, subscribe } from './helpers.ts'

// Monday 16 March 2026, 14:00 KST.
const clock = testClock('2026-03-16T05:00:00.000Z')
const fake = fakeTransport()
const current = sharedTestApp({ clock, env: pushEnv, pushTransport: () => fake.transport })
let storeId: number

/**
 * Five weeks of a sale every 2 minutes from 01:00 to 11:59 UTC, taking the machines in turn (W1, W2, W3
 * washers; D1, D2 dryers) up to `until`; after `deadFrom`, none on the machines `dead`.
 */
async function salesByMachine(until: string, deadFrom: string, dead: string[]) {
  await current.app.db.execute(
    sql`insert into usages (store_id, created_at, amount, machine)
        select * from (select ${storeId}::int, t, 3000,
            (array['W1','W2','W3','D1','D2'])[1 + (extract(epoch from t)::bigint / 120) % 5] as machine
          from generate_series('2026-02-09T00:00:00Z'::timestamptz, ${until}::timestamptz, interval '2 minutes') t
          where extract(hour from t at time zone 'UTC') between 1 and 11) s
        where not (s.machine = any(${`{${dead.join(',')}}`}::text[]) and s.t >= ${deadFrom}::timestamptz)`,
  )
  await current.app.db.execute(
    sql`insert into machines (store_id, machine, reported_kind, first_seen_at, last_sale_at)
        select store_id, machine, case when machine like 'W%' then 'washer' else 'dryer' end, min(created_at), max(created_at)
        from usages where store_id = ${storeId} group by store_id, machine`,
  )
}

/** A sale on a machine, as a device's batch stores it (the machine's last sale moves). */
async function machineSale(machine: string, at: string) {
  await current.app.db.execute(
    sql`insert into usages (store_id, created_at, amount, machine) values (${storeId}, ${at}::timestamptz, 3000, ${machine})`,
  )
  await current.app.db.execute(
    sql`update machines set last_sale_at = greatest(last_sale_at, ${at}::timestamptz) where store_id = ${storeId} and machine = ${machine}`,
  )
}

const evaluate = () => current.app.alertRules.evaluate(clock.now())
const pushed = () =>
  fake.sent.map((request) => JSON.parse(request.payload) as { title: string; body: string; tag: string })

beforeEach(async () => {
  fake.clear()
  const people = await storeWithPeople(current.app)
  storeId = people.storeId
  await subscribe(current.app, people.owner, 'owner')
})

describe('machine silent', () => {
  it('a dead washer while the other washers sell: one alert, replaced under its tag when it sells again', async () => {
    await salesByMachine('2026-03-16T04:59:00Z', '2026-03-16T02:00:00Z', ['W3'])
    const [facts] = await queryRows<{ last: Date | string; others: string | number }>(
      current.app.db,
      sql`select max(created_at) filter (where machine = 'W3') as last,
            count(*) filter (where machine in ('W1', 'W2') and created_at > (select max(created_at) from usages where machine = 'W3')) as others
          from usages where store_id = ${storeId}`,
    )
    const last = new Date(facts?.last ?? 0)
    const hours = Math.floor((clock.now().getTime() - last.getTime()) / 3_600_000)
    const report = await evaluate()
    expect(report.sent).toBe(2) // the owner and the staff member, each their own row
    const episode = `${last.toISOString()} W3`
    expect(pushed()).toEqual([
      {
        title: '역삼점 · 기계 판매 없음',
        body: `W3 · ${hours}시간째 판매 없음 · 같은 시간 다른 세탁기 ${Number(facts?.others)}회`,
        tag: `machineSilent:${storeId}:${episode}`,
        store: storeId,
      },
    ])
    // The store as a whole sells on: no quiet alert; the episode is raised once.
    clock.advance(60_000)
    await evaluate()
    expect(fake.sent).toHaveLength(1)
    expect((await alertRows(current.app)).map((row) => [row.kind, row.episode])).toEqual([
      ['machineSilent', episode],
      ['machineSilent', episode],
    ])

    clock.set('2026-03-16T05:11:00.000Z')
    await machineSale('W3', '2026-03-16T05:10:00.000Z')
    expect((await evaluate()).resumed).toBe(2) // each member's row replaced
    expect(pushed()[1]).toEqual({
      title: '역삼점 · W3 판매 재개',
      body: expect.stringMatching(/^다시 판매 시작 · 14:10 \(\d+시간 \d+분 무판매\)$/),
      tag: `machineSilent:${storeId}:${episode}`,
      store: storeId,
    })
    clock.advance(60_000)
    await evaluate()
    expect(fake.sent).toHaveLength(2)
  })

  it('a washer whose own runs are short is called silent by its fitted tail, sooner than by its share', async () => {
    // Five weeks of a sale every 4 minutes, 01:00–11:59 UTC, on W1 W2 W1 W3 W2 W3 in turn: W1's runs are
    // 1 and 3 of the others' sales by turns (its threshold from them: 15), where a share of 1/3 alone
    // would wait for 24. W1 dead from 03:00: 20 of the others' sales by 05:00.
    await current.app.db.execute(
      sql`insert into usages (store_id, created_at, amount, machine)
          select * from (select ${storeId}::int, t, 3000,
              (array['W1','W2','W1','W3','W2','W3'])[1 + (extract(epoch from t)::bigint / 240) % 6] as machine
            from generate_series('2026-02-09T00:00:00Z'::timestamptz, '2026-03-16T04:59:00Z'::timestamptz, interval '4 minutes') t
            where extract(hour from t at time zone 'UTC') between 1 and 11) s
          where not (s.machine = 'W1' and s.t >= '2026-03-16T03:00:00Z'::timestamptz)`,
    )
    await current.app.db.execute(
      sql`insert into machines (store_id, machine, reported_kind, first_seen_at, last_sale_at)
          select store_id, machine, 'washer', min(created_at), max(created_at)
          from usages where store_id = ${storeId} group by store_id, machine`,
    )
    const [facts] = await queryRows<{ others: string | number }>(
      current.app.db,
      sql`select count(*) as others from usages where store_id = ${storeId}
            and created_at > (select max(created_at) from usages where machine = 'W1' and store_id = ${storeId})`,
    )
    expect(Number(facts?.others)).toBeGreaterThanOrEqual(15)
    expect(Number(facts?.others)).toBeLessThan(24)
    // A store under the same id in an earlier test left its shares read: they are read again (a minute).
    await evaluate()
    clock.advance(60_000)
    await evaluate()
    expect(pushed().map((p) => p.body)).toEqual([
      `W1 · 2시간째 판매 없음 · 같은 시간 다른 세탁기 ${Number(facts?.others)}회`,
    ])
  })

  it('a washer that sold lately, or sells at its usual share, raises nothing', async () => {
    await salesByMachine('2026-03-16T04:59:00Z', '2026-03-16T04:00:00Z', ['W3'])
    const report = await evaluate()
    expect(report.sent).toBe(0)
    expect(fake.sent).toHaveLength(0)
  })

  it('a store quiet as a whole raises no machine alert (the quiet rule speaks)', async () => {
    await salesByMachine('2026-03-16T04:59:00Z', '2026-03-16T02:00:00Z', ['W1', 'W2', 'W3', 'D1', 'D2'])
    await evaluate()
    const kinds = (await alertRows(current.app)).map((row) => row.kind)
    expect(kinds).not.toContain('machineSilent')
    expect(kinds).toContain('quiet')
  })
})
