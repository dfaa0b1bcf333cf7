// The machine-silent rule's shares (server/alerts/machine-silent.ts): read for at most
// `shareReadsPerEvaluation` stores an evaluation (lowered to 1 here), a store's of yesterday serving
// until its of the new UTC day are read, never older ones; and each app's its own, so two apps on two
// databases never judge a store by the other's under the same id.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { episodeParts, machineSilentRule } from '../../../server/alerts/machine-silent.ts'
import { eachStore } from '../../../server/alerts/store-state.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import type { Db } from '../../../server/db/client.ts'
import { storeViews } from '../../../server/stores/view.ts'
import { storeWithPeople } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { createTestApp, sharedTestApp, type TestApp, testClock } from '../test-app.ts'
import { alertRows, pushEnv, subscribe } from './helpers.ts'

const current = sharedTestApp()

/**
 * A sale every 2 minutes from 01:00 to 11:59 UTC in [from, until], taking the machines of `turns` in
 * turn; none on W3 from `deadFrom`. The machines' rows (W… washers, D… dryers) follow, W3's too.
 */
async function sales(
  db: Db,
  storeId: number,
  {
    from,
    until,
    deadFrom = until,
    turns = ['W1', 'W2', 'W3', 'D1', 'D2'],
  }: {
    from: string
    until: string
    deadFrom?: string
    turns?: string[]
  },
) {
  await db.execute(
    sql`insert into usages (store_id, created_at, amount, machine)
        select * from (select ${storeId}::int, t, 3000,
            (${`{${turns.join(',')}}`}::text[])[1 + (extract(epoch from t)::bigint / 120) % ${turns.length}] as machine
          from generate_series(${from}::timestamptz, ${until}::timestamptz, interval '2 minutes') t
          where extract(hour from t at time zone 'UTC') between 1 and 11) s
        where not (s.machine = 'W3' and s.t >= ${deadFrom}::timestamptz)`,
  )
  await db.execute(
    sql`insert into machines (store_id, machine, reported_kind, first_seen_at, last_sale_at)
        select ${storeId}::int, m, case when m like 'W%' then 'washer' else 'dryer' end, ${from}::timestamptz,
          (select max(created_at) from usages where store_id = ${storeId} and machine = m)
        from unnest(array['W1', 'W2', 'W3', 'D1', 'D2']) m
        on conflict (store_id, machine) do update set last_sale_at = excluded.last_sale_at`,
  )
}

/** Stores with a member, in id order. */
async function stores(db: Db, count: number) {
  await addUser(db, { phone: '01012345678', name: '김사장' })
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const id = await addStore(db, { name: `${i + 1}호점` })
    await grant(db, '01012345678', id, 'owner')
    ids.push(id)
  }
  return ids
}

/** The rule as the app runs it each minute, reading at most one store's shares an evaluation. */
function oneReadAnEvaluation(db: Db) {
  const rule = machineSilentRule(db, { shareReadsPerEvaluation: 1 })
  const views = storeViews(db)
  /** The silent machines at `instant`, as `storeId machine`. */
  return async (instant: string) => {
    const at = Date.parse(instant)
    await rule.load(at)
    await eachStore(db, views, at, (store) => rule.visit(store, at))
    const found = await rule.candidates(new Date(at))
    return found.map((c) => `${c.storeId} ${episodeParts(c.episode).machine}`).sort()
  }
}

describe('machine silent: the shares read a few stores an evaluation', () => {
  it("until a store's shares of the new day are read, its of yesterday judge it; the next evaluation reads them", async () => {
    const { db } = current.app
    // 1 and 3: five weeks of sales; 2: opened on the 15th (no day before it to read a share from).
    const [a, b, c] = (await stores(db, 3)) as [number, number, number]
    await sales(db, a, { from: '2026-02-09T00:00:00Z', until: '2026-03-15T11:59:00Z' })
    await sales(db, b, { from: '2026-03-15T00:00:00Z', until: '2026-03-15T11:59:00Z' })
    await sales(db, c, { from: '2026-02-09T00:00:00Z', until: '2026-03-15T11:59:00Z' })
    const silent = oneReadAnEvaluation(db)
    // The 15th: three evaluations read the three stores' shares (of the days before the 15th).
    for (const minute of ['12:00', '12:01', '12:02'])
      expect(await silent(`2026-03-15T${minute}:00Z`)).toEqual([])
    // The 16th: W3 sells nothing from 02:00 in every store while the others sell on.
    for (const id of [a, b, c])
      await sales(db, id, {
        from: '2026-03-16T00:00:00Z',
        until: '2026-03-16T04:59:00Z',
        deadFrom: '2026-03-16T02:00:00Z',
      })

    // The day's first evaluation reads store 1's shares only. Store 3 is judged by its of yesterday (W3
    // silent); store 2 too, and they (no day before the 15th) watch no machine: its W3 is not called silent.
    expect(await silent('2026-03-16T05:00:00Z')).toEqual([`${a} W3`, `${c} W3`])
    // The next reads store 2's (the 15th's sales): its W3 is silent too.
    expect(await silent('2026-03-16T05:01:00Z')).toEqual([`${a} W3`, `${b} W3`, `${c} W3`])
    expect(await silent('2026-03-16T05:02:00Z')).toEqual([`${a} W3`, `${b} W3`, `${c} W3`])
  })

  it('shares two days old judge no store: it waits for its of the day', async () => {
    const { db } = current.app
    const [a, c] = (await stores(db, 2)) as [number, number]
    for (const id of [a, c])
      await sales(db, id, { from: '2026-02-09T00:00:00Z', until: '2026-03-14T11:59:00Z' })
    const silent = oneReadAnEvaluation(db)
    // The 14th: both stores' shares read. No evaluation on the 15th (every instance down).
    for (const minute of ['12:00', '12:01']) expect(await silent(`2026-03-14T${minute}:00Z`)).toEqual([])
    for (const id of [a, c]) {
      await sales(db, id, { from: '2026-03-15T00:00:00Z', until: '2026-03-15T11:59:00Z' })
      await sales(db, id, {
        from: '2026-03-16T00:00:00Z',
        until: '2026-03-16T04:59:00Z',
        deadFrom: '2026-03-16T02:00:00Z',
      })
    }

    // The 16th's first evaluation reads store 1's; store 2's of the 14th are too old: not judged.
    expect(await silent('2026-03-16T05:00:00Z')).toEqual([`${a} W3`])
    expect(await silent('2026-03-16T05:01:00Z')).toEqual([`${a} W3`, `${c} W3`])
  })
})

describe('machine silent: each app its own shares', () => {
  // Monday 16 March 2026, 14:00 KST.
  const clock = testClock('2026-03-16T05:00:00.000Z')
  const fakes = [fakeTransport(), fakeTransport()]
  const apps: TestApp[] = []
  beforeAll(async () => {
    for (const fake of fakes)
      apps.push(await createTestApp({ clock, env: pushEnv, pushTransport: () => fake.transport }))
  })
  afterAll(async () => {
    for (const app of apps) await app.close()
  })

  it("a store of one app's database is never judged by the shares of another's under the same id", async () => {
    const [first, second] = apps as [TestApp, TestApp]
    const ids: number[] = []
    for (const app of apps) {
      const people = await storeWithPeople(app)
      await subscribe(app, people.owner, 'owner')
      ids.push(people.storeId)
    }
    expect(ids[0]).toBe(ids[1])
    const storeId = ids[0] as number
    // The first database's store: as many sales, the same machines, but W3 never sold (W1 took its
    // turns): by its shares the second's W3, dead since 02:00, would be far from silent.
    await sales(first.db, storeId, {
      from: '2026-02-09T00:00:00Z',
      until: '2026-03-16T04:59:00Z',
      turns: ['W1', 'W2', 'W1', 'D1', 'D2'],
    })
    await sales(second.db, storeId, {
      from: '2026-02-09T00:00:00Z',
      until: '2026-03-16T04:59:00Z',
      deadFrom: '2026-03-16T02:00:00Z',
    })

    await first.alertRules.evaluate(clock.now())
    await second.alertRules.evaluate(clock.now())
    expect((await alertRows(first)).map((row) => row.kind)).not.toContain('machineSilent')
    expect(
      (await alertRows(second)).map((row) => [row.kind, episodeParts(row.episode).machine]),
    ).toContainEqual(['machineSilent', 'W3'])
  })
})
