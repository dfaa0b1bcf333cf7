// Rate-limit events are kept only as long as a window can count them.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../server/db/client.ts'
import { loginCodes, phoneLocks, rateEvents } from '../../server/db/schema.ts'
import { dayMs, longestWindowMs, sweepOldEvents } from '../../server/rate-limit.ts'
import { sweepSignInState } from '../../server/sign-in/sweep.ts'
import { createTestApp, type TestApp, testClock, withAnotherInstance } from './test-app.ts'

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

  it('lock rows go a day after both their last failure and their lock have passed; expired codes go', async () => {
    const now = clock.now().getTime()
    const ago = (ms: number) => new Date(now - ms)
    const hour = 3_600_000
    await app.db.insert(phoneLocks).values([
      { phone: 'a', clientKey: 'failed 25 hours ago', failures: 3, lastFailureAt: ago(25 * hour) },
      { phone: 'b', clientKey: 'failed an hour ago', failures: 3, lastFailureAt: ago(hour) },
      {
        phone: 'c',
        clientKey: 'locked until 23 hours ago',
        failures: 10,
        locks: 5,
        lockedUntil: ago(23 * hour),
        lastFailureAt: ago(30 * hour),
      },
      {
        phone: 'd',
        clientKey: 'locked until 25 hours ago',
        failures: 10,
        locks: 1,
        lockedUntil: ago(25 * hour),
        lastFailureAt: ago(26 * hour),
      },
      {
        phone: 'e',
        clientKey: 'a lock ended long ago, failed since',
        failures: 12,
        locks: 1,
        lockedUntil: ago(3 * dayMs),
        lastFailureAt: ago(hour),
      },
    ])
    const code = { codeHash: 'x', tries: 0, address: '198.51.100.1' }
    await app.db.insert(loginCodes).values([
      { ...code, phone: 'a', clientKey: 'expired', expiresAt: ago(1000) },
      { ...code, phone: 'a', clientKey: 'live', expiresAt: ago(-60_000) },
    ])
    await sweepSignInState(app.db, clock.now())
    const locks = await queryRows<{ phone: string }>(
      app.db,
      sql`select phone from phone_locks order by phone`,
    )
    expect(locks.map((row) => row.phone)).toEqual(['b', 'c', 'e'])
    const codes = await queryRows<{ client_key: string }>(app.db, sql`select client_key from login_codes`)
    expect(codes.map((row) => row.client_key)).toEqual(['live'])
  })

  it('are swept when the server starts', async () => {
    const now = clock.now().getTime()
    await app.db.insert(rateEvents).values({ key: 'old', at: new Date(now - 2 * dayMs) })
    await withAnotherInstance(app, { clock }, (second) => second.ready())
    const left = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from rate_events where key = 'old'`,
    )
    expect(left[0]?.n).toBe(0)
  })
})
