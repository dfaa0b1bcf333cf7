import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, queryRows } from '../../server/db/client.ts'
import { demoAccounts, seedDemoIfEmpty } from '../../server/db/seed.ts'
import { openTestDatabase } from './test-app.ts'

const now = new Date('2026-02-10T05:00:00.000Z')
const imageDir = mkdtempSync(path.join(tmpdir(), 'laundry-seed-'))
let database: Database

beforeAll(async () => {
  database = await openTestDatabase()
  expect(await seedDemoIfEmpty(database.db, imageDir, now)).toBe(true)
}, 120_000)
afterAll(async () => {
  await database.close()
  rmSync(imageDir, { recursive: true, force: true })
})

const rows = <Row>(query: ReturnType<typeof sql>) => queryRows<Row>(database.db, query)

describe('demo data', () => {
  it('has an owner of three stores, a staff member of one of them, and a user with no stores', async () => {
    const members = await rows<{ phone: string; stores: string }>(sql`
      select u.phone, coalesce(string_agg(m.store_id || ':' || m.role, ',' order by m.store_id), '') as stores
      from users u left join memberships m on m.user_id = u.id group by u.phone order by u.phone`)
    expect(members).toEqual([
      { phone: demoAccounts.noStores, stores: '' },
      { phone: demoAccounts.owner, stores: '1:owner,2:owner,3:owner' },
      { phone: demoAccounts.staff, stores: '2:staff' },
    ])
  })

  it('has generated pictures for every store and the two staff accounts', async () => {
    const paths = await rows<{ path: string }>(sql`
      select unnest(images) as path from stores union all select image from users where image is not null`)
    expect(paths.length).toBe(8)
    for (const { path: image } of paths) expect(existsSync(path.join(imageDir, image))).toBe(true)
  })

  it('has a busy store with at least 70,000 records in a year, from 1 January of last year up to now', async () => {
    const [busy] = await rows<{ n: number; first: string; last: string }>(sql`
      select count(*)::int as n, min(created_at)::text as first, max(created_at)::text as last
      from usages where store_id = 1 and created_at >= '2025-01-01T00:00:00Z' and created_at < '2026-01-01T00:00:00Z'`)
    expect(busy?.n).toBeGreaterThanOrEqual(70_000)
    const [span] = await rows<{ first: Date | string; last: Date | string }>(sql`
      select min(created_at) as first, max(created_at) as last from usages`)
    expect(new Date(String(span?.first)).getTime()).toBeGreaterThanOrEqual(Date.parse('2025-01-01T00:00:00Z'))
    expect(new Date(String(span?.first)).getTime()).toBeLessThan(Date.parse('2025-01-01T12:00:00Z'))
    expect(new Date(String(span?.last)).getTime()).toBeLessThanOrEqual(now.getTime())
    expect(new Date(String(span?.last)).getTime()).toBeGreaterThan(now.getTime() - 3600_000)
  })

  it('prices every cycle between 3,000 and 8,000 won, and refunds one of them now and then', async () => {
    const [range] = await rows<{ low: number; high: number; refundLow: number; refundHigh: number }>(
      sql`select min(amount) filter (where amount >= 0) as low, max(amount) filter (where amount >= 0) as high,
            min(amount) filter (where amount < 0) as "refundLow", max(amount) filter (where amount < 0) as "refundHigh"
          from usages`,
    )
    expect(range).toEqual({ low: 3000, high: 8000, refundLow: -8000, refundHigh: -3000 })
  })

  it("names every record's machine (by weight, at its prices) and method (by share); a refund or two a week a store", async () => {
    const machines = await rows<{
      store: number
      machine: string
      kind: string
      n: number
      low: number
      high: number
    }>(sql`
      select m.store_id as store, m.machine, m.reported_kind as kind, count(u.*)::int as n,
        min(u.amount) filter (where u.amount >= 0) as low, max(u.amount) as high
      from machines m join usages u on u.store_id = m.store_id and u.machine = m.machine
      group by m.store_id, m.machine, m.reported_kind order by m.store_id, m.machine`)
    const of = (store: number) => machines.filter((m) => m.store === store)
    expect(of(1).map((m) => m.machine)).toEqual(['D1', 'D2', 'D3', 'D4', 'W1', 'W2', 'W3', 'W4', 'W5', 'W6'])
    for (const store of [1, 2, 3]) {
      expect(of(store).length).toBeGreaterThanOrEqual(6)
      expect(of(store).length).toBeLessThanOrEqual(12)
      expect(of(store).every((m) => m.kind === (m.machine.startsWith('W') ? 'washer' : 'dryer'))).toBe(true)
    }
    const busy = (name: string) => of(1).find((m) => m.machine === name)
    // W1 is the most used washer, W5 the least of the ordinary ones; W6 (대형) alone charges 6,000–8,000.
    expect(busy('W1')?.n).toBeGreaterThan(2 * (busy('W5')?.n ?? 0))
    expect(busy('D1')?.n).toBeGreaterThan(2 * (busy('D4')?.n ?? 0))
    expect(busy('W6')).toMatchObject({ low: 6000, high: 8000 })
    expect(
      of(1)
        .filter((m) => m.machine !== 'W6')
        .every((m) => m.high <= 5000),
    ).toBe(true)

    const [unnamed] = await rows<{ n: number }>(
      sql`select count(*)::int as n from usages where machine is null or method is null`,
    )
    expect(unnamed?.n).toBe(0)
    const methods = await rows<{ method: string; share: number }>(sql`
      select method, (100.0 * count(*) / sum(count(*)) over ())::float as share
      from usages where amount >= 0 group by method order by method`)
    const designed = { card: 65, cash: 10, coin: 8, mobile: 15, point: 2 }
    expect(methods.map((m) => m.method)).toEqual(Object.keys(designed))
    for (const { method, share } of methods)
      expect(Math.abs(share - designed[method as keyof typeof designed])).toBeLessThan(1)

    const refunds = await rows<{ store: number; n: number }>(sql`
      select store_id as store, count(*)::int as n
      from usages where amount < 0 group by store_id order by store_id`)
    expect(refunds.map((r) => r.store)).toEqual([1, 2, 3])
    const weeks = (now.getTime() - Date.parse('2025-01-01T00:00:00Z')) / (7 * 86_400_000)
    for (const { n } of refunds) {
      const perWeek = n / weeks
      expect(perWeek).toBeGreaterThan(0.8)
      expect(perWeek).toBeLessThan(2.5)
    }
  })

  it('is realistic: busier in the Korean evening than at night, and at weekends than on weekdays', async () => {
    const [shape] = await rows<{ evening: number; night: number; weekend: number; weekday: number }>(sql`
      with kst as (select created_at + interval '9 hours' as t from usages where store_id = 1)
      select
        count(*) filter (where extract(hour from t at time zone 'UTC') between 19 and 21)::int as evening,
        count(*) filter (where extract(hour from t at time zone 'UTC') between 2 and 4)::int as night,
        (count(*) filter (where extract(isodow from t at time zone 'UTC') in (6, 7)) / 2.0)::float as weekend,
        (count(*) filter (where extract(isodow from t at time zone 'UTC') between 1 and 4) / 4.0)::float as weekday
      from kst`)
    expect(shape?.evening).toBeGreaterThan(3 * (shape?.night ?? 0))
    expect(shape?.weekend).toBeGreaterThan(1.2 * (shape?.weekday ?? 0))
  })

  it('is deterministic: a later seed has exactly the same records up to the earlier moment', async () => {
    const later = await openTestDatabase()
    try {
      await seedDemoIfEmpty(later.db, imageDir, new Date(now.getTime() + 86_400_000))
      const fingerprint = `select store_id, count(*)::int as n, sum(amount)::bigint::text as total,
          md5(string_agg(created_at::text || amount || machine || method, ',' order by created_at, amount)) as digest
        from usages where created_at <= '${now.toISOString()}' group by store_id order by store_id`
      const [a, b] = await Promise.all([
        queryRows(database.db, sql.raw(fingerprint)),
        queryRows(later.db, sql.raw(fingerprint)),
      ])
      expect(a).toHaveLength(3)
      expect(b).toEqual(a)
    } finally {
      await later.close()
    }
  }, 120_000)

  it('is loaded only into an empty database', async () => {
    expect(await seedDemoIfEmpty(database.db, imageDir, now)).toBe(false)
  })
})
