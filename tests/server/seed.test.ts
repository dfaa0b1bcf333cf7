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

  it('prices every cycle between 3,000 and 8,000 won', async () => {
    const [range] = await rows<{ low: number; high: number }>(
      sql`select min(amount) as low, max(amount) as high from usages`,
    )
    expect(range).toEqual({ low: 3000, high: 8000 })
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
          md5(string_agg(created_at::text || amount, ',' order by created_at, amount)) as digest
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
