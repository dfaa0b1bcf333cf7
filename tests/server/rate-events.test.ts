// Rate-limit events are kept only as long as a window can count them.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../server/db/client.ts'
import { rateEvents } from '../../server/db/schema.ts'
import { dayMs, longestWindowMs, sweepOldEvents } from '../../server/sign-in/rate-limits.ts'
import { createTestApp, type TestApp, testClock } from './test-app.ts'

describe('rate-limit events', () => {
  const clock = testClock('2026-03-15T03:00:00.000Z')
  let app: TestApp
  beforeAll(async () => {
    app = await createTestApp({ clock })
  })
  afterAll(() => app.close())

  it('are deleted once no window can count them, also for keys never checked again', async () => {
    const now = clock.now().getTime()
    expect(longestWindowMs).toBe(dayMs)
    await app.db.insert(rateEvents).values([
      { key: 'code:ip:203.0.113.9', at: new Date(now - longestWindowMs - 1000) },
      { key: 'code:ip:203.0.113.9', at: new Date(now - longestWindowMs + 60_000) },
      { key: 'sign:ip:198.51.100.7', at: new Date(now - 3 * dayMs) },
    ])
    await sweepOldEvents(app.db, clock.now())
    const left = await queryRows<{ key: string }>(app.db, sql`select key from rate_events order by key`)
    expect(left.map((row) => row.key)).toEqual(['code:ip:203.0.113.9'])
  })

  it('are swept when the server starts', async () => {
    const now = clock.now().getTime()
    await app.db.insert(rateEvents).values({ key: 'old', at: new Date(now - 2 * dayMs) })
    const second = await createTestApp({ clock, sameDatabaseAs: app })
    await second.ready()
    const left = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from rate_events where key = 'old'`,
    )
    await second.close()
    expect(left[0]?.n).toBe(0)
  })
})
