// The quiet rule's push floor and what the alerts screen is told (docs/product.md §12): a store selling
// fewer than 20 a day gets no quiet push, its morning summary counts the day's quiet spells instead;
// the alert settings answer says, for each store, about how long a silence takes before it speaks.
import { sql } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { emptyBuckets } from '../../../domain/buckets.ts'
import { dayMs } from '../../../domain/calendar.ts'
import { hourOfYear } from '../../../domain/usual.ts'
import { MODEL_BUILDS_PER_EVALUATION, modelOf } from '../../../server/alerts/quiet.ts'
import { grant } from '../../../server/db/accounts.ts'
import { ownerPhone, storeWithPeople } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { bearer, sharedTestApp, testClock } from '../test-app.ts'
import { alertRows, pushEnv, steadySales, subscribe } from './helpers.ts'

// Monday 16 March 2026, 18:00 KST.
const clock = testClock('2026-03-16T09:00:00.000Z')
const fake = fakeTransport()
const current = sharedTestApp({ clock, env: pushEnv, pushTransport: () => fake.transport })
let people: Awaited<ReturnType<typeof storeWithPeople>>

/** A sale on the hour from 01:00 to 11:00 UTC (10:00–20:00 KST), 11 a day, over 8 weeks up to `until`. */
async function smallStore(storeId: number, until: string) {
  await current.app.db.execute(
    sql`insert into usages (store_id, created_at, amount)
        select ${storeId}, t, 3000 from generate_series(${until}::timestamptz - interval '57 days', ${until}::timestamptz, interval '1 hour') t
        where extract(hour from t at time zone 'UTC') between 1 and 11`,
  )
}

beforeEach(async () => {
  fake.clear()
  people = await storeWithPeople(current.app)
  // The small store's last sale: 01:00 UTC today; nothing since (8 sales expected by 09:00).
  await smallStore(people.storeId, '2026-03-16T01:00:00.000Z')
  await subscribe(current.app, people.owner, 'owner')
})

const evaluate = () => current.app.alertRules.evaluate(clock.now())
const settings = async () =>
  (
    await current.app.inject({ method: 'GET', url: '/api/v0/alerts/settings', headers: bearer(people.owner) })
  ).json().stores as { storeId: number; quietAfter?: { minutes: number; push: boolean } | null }[]

describe('a store under 20 sales a day', () => {
  it('gets no quiet push, however long its silence', async () => {
    const report = await evaluate()
    expect(report.sent + report.held).toBe(0)
    expect(fake.sent).toHaveLength(0)
    expect(await alertRows(current.app)).toEqual([])
  })

  it("has its quiet spell told in the next morning's summary", async () => {
    await evaluate()
    clock.set('2026-03-17T00:05:00.000Z')
    expect((await evaluate()).summaries).toBe(2) // the owner's and the staff member's
    const [summary] = fake.sent.map((request) => JSON.parse(request.payload) as { body: string })
    expect(summary?.body).toMatch(/^역삼점 3,000원 1건 .*· 판매 없음 1번$/)
  })
})

describe('the alert settings answer', () => {
  it('tells about how long a silence takes before each store is alerted, and whether it is pushed', async () => {
    // Before the server holds a view of the stores it cannot tell: the field is left out.
    expect((await settings())[0]).not.toHaveProperty('quietAfter')
    // The owner's second store sells 66 a day.
    await grant(current.app.db, ownerPhone, people.otherStoreId, 'owner')
    await steadySales(
      current.app,
      people.otherStoreId,
      '2026-01-15T00:00:00.000Z',
      '2026-03-16T09:00:00.000Z',
    )
    await evaluate()
    const [small, steady] = await settings()
    // 11 sales over the 12 daytime hours (00–12 UTC): a threshold of about ln(11 × 30.44 / 0.35) = 6.9
    // sales at 11/12 an hour, about 7.5 hours.
    expect(small?.quietAfter?.push).toBe(false)
    expect(small?.quietAfter?.minutes).toBeGreaterThan(6 * 60)
    expect(small?.quietAfter?.minutes).toBeLessThan(8 * 60)
    // 66 a day, 6 an hour from 01:00 to 11:50: ln(66 × 30.44 / 0.35) = 8.7 sales at 5.5 an hour, 95 min.
    expect(steady?.quietAfter?.push).toBe(true)
    expect(steady?.quietAfter?.minutes).toBeGreaterThan(80)
    expect(steady?.quietAfter?.minutes).toBeLessThan(110)
  })
})

describe("the server's models", () => {
  it('are made at most MODEL_BUILDS_PER_EVALUATION in one evaluation, the rest in the next ones', () => {
    const now = Date.parse('2026-03-16T09:00:30.000Z') // an instant no evaluation of this file used
    const current = emptyBuckets(2026)
    // A sale every hour for 8 weeks before today.
    for (let hour = 0; hour < hourOfYear(now - (now % dayMs)); hour++) current.hourCounts[hour] = 1
    const previous = emptyBuckets(2025)
    // Store ids no other test uses: one evaluation's worth, and one more.
    const ids = Array.from({ length: MODEL_BUILDS_PER_EVALUATION + 1 }, (_, index) => 1_000_000 + index)
    const first = ids.map((id) => modelOf(id, current, previous, now))
    expect(first.filter((model) => model !== null)).toHaveLength(MODEL_BUILDS_PER_EVALUATION)
    expect(first.at(-1)).toBeNull()
    // The next minute: the last one is made; the others are kept.
    expect(modelOf(ids.at(-1) as number, current, previous, now + 60_000)).not.toBeNull()
    expect(modelOf(ids[0] as number, current, previous, now + 60_000)).toBe(first[0])
  })
})
