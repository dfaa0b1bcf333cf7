// GET /api/v0/stores/overview (docs/product.md decisions 97–99): its shape and membership rule, its
// figures against a slow, obviously correct reference computed straight from random records at random
// instants, its devices, and a sale moving the answer (one store-year rebuilt, nothing else). Answered
// from the view of every store (decision 138), the same answer as from the years, for random records
// and instants, and after sales the view had not seen.

import { sql } from 'drizzle-orm'
import { Value } from 'typebox/value'
import { describe, expect, it } from 'vitest'
import { hourlyHistory } from '../../../bench/calibration-model.ts'
import { StoresOverviewAnswer } from '../../../contract/api.ts'
import { quietStore } from '../../../domain/quiet.ts'
import { seededRandom } from '../../../scripts/seeded-random.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { devices, usages } from '../../../server/db/schema.ts'
import { storesOverview } from '../../../server/usage/overview.ts'
import { bearer, capturedSms, sharedTestApp, signIn, type TestApp, testClock } from '../test-app.ts'

const owner = '01012345678'
const staff = '01022223333'
const stranger = '01000000000'
const clock = testClock('2026-03-15T03:00:00.000Z')
const sms = capturedSms()
const current = sharedTestApp({ clock, sms })

const hour = 3_600_000
const day = 24 * hour
const week = 7 * day

interface RecordRow {
  at: number
  amount: number
}

const generator = seededRandom

// ---- The reference: straight from the records, one rule at a time, as docs/product.md states them. ----

const utcYear = (ms: number) => new Date(ms).getUTCFullYear()
const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit

/**
 * The sum and sales of the records whose UTC hour overlaps [from, to), each weighed by the share of its
 * hour inside the range (the figures are hourly: a cut hour counts for the elapsed part of it).
 */
function totals(records: RecordRow[], from: number, to: number) {
  let sum = 0
  let count = 0
  for (const { at, amount } of records) {
    const h = floorTo(at, hour)
    const covered = Math.min(to, h + hour) - Math.max(from, h)
    if (covered <= 0) continue
    const share = covered / hour
    sum += amount * share
    if (amount > 0) count += share
  }
  return { sum, count }
}
const nonZero = (t: { sum: number; count: number }) => (t.sum !== 0 || t.count !== 0 ? t : null)

function reference(records: RecordRow[], nowMs: number) {
  const year = utcYear(nowMs)
  const held = records.filter(({ at }) => utcYear(at) === year || utcYear(at) === year - 1)
  const dayStart = floorTo(nowMs, day)
  const hourEnd = floorTo(nowMs, hour) + hour
  const today = totals(held, dayStart, hourEnd)
  let usualSum = 0
  let usualCount = 0
  for (let w = 1; w <= 4; w++) {
    const t = totals(held, dayStart - w * week, dayStart - w * week + (nowMs - dayStart))
    usualSum += t.sum
    usualCount += t.count
  }
  const usual = nonZero({ sum: usualSum / 4, count: usualCount / 4 })
  const now = new Date(nowMs)
  const monthStart = Date.UTC(year, now.getUTCMonth(), 1)
  const previousStart = Date.UTC(year, now.getUTCMonth() - 1, 1)
  const month = totals(held, monthStart, hourEnd)
  const previousMonth = nonZero(
    totals(held, previousStart, Math.min(previousStart + (nowMs - monthStart), monthStart)),
  )
  const sales = held.filter(({ amount }) => amount > 0).map(({ at }) => at)
  const thisYearSales = sales.filter((at) => utcYear(at) === year)
  const lastSaleAt = thisYearSales.length ? Math.max(...thisYearSales) : null
  // The quiet rule (domain/quiet.ts: the store's model and own threshold, tested on its own in
  // tests/domain/quiet-model.test.ts and tests/web/figures/quiet.test.ts) on hourly counts taken
  // straight from the records: from the last sale, the day before too, to now.
  const lastSale = sales.length ? Math.max(...sales) : null
  const found = quietStore({
    history: hourlyHistory(sales, [year - 1, year]).reverse(),
    lastSaleAt: lastSale,
    now: new Date(nowMs),
    online: true,
  })
  const quiet = found && { since: found.since, expected: found.expectedSales }
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  return {
    today,
    usual,
    month,
    previousMonth,
    lastSaleAt: iso(lastSaleAt),
    quiet: quiet && { since: iso(quiet.since), expected: quiet.expected },
  }
}

/** Equal, numbers within a relative 1e-9 (the sums add in another order). */
function expectClose(actual: unknown, expected: unknown, where: string) {
  if (typeof expected === 'number' && typeof actual === 'number') {
    expect(Math.abs(actual - expected), `${where}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
      1e-9 * Math.max(1, Math.abs(expected)),
    )
  } else if (expected && typeof expected === 'object' && actual && typeof actual === 'object') {
    expect(Object.keys(actual).sort(), where).toEqual(Object.keys(expected).sort())
    for (const key of Object.keys(expected))
      expectClose(
        (actual as Record<string, unknown>)[key],
        (expected as Record<string, unknown>)[key],
        `${where}.${key}`,
      )
  } else {
    expect(actual, where).toEqual(expected)
  }
}

// ---- Random stores ----

/**
 * Records of a laundromat with a weekday and hour rhythm from `from` to just before `now`: mostly
 * sales, some refunds and zero amounts; with `stopBefore`, nothing in that last stretch (a broken
 * store), so that the quiet rule has something to say.
 */
function laundromat(random: () => number, from: number, now: number, stopBefore: number): RecordRow[] {
  const records: RecordRow[] = []
  const busy = 0.5 + random() * 3
  for (let h = floorTo(from, hour); h < now - stopBefore; h += hour) {
    const utcHour = new Date(h).getUTCHours()
    // Busy from 09:00 to 23:00 Korea time (00–14 UTC), quieter on weekdays' nights.
    const rate = (utcHour <= 14 ? busy : busy / 6) * (new Date(h).getUTCDay() === 0 ? 1.5 : 1)
    let n = Math.floor(rate + random())
    while (n-- > 0) {
      const at = h + Math.floor(random() * hour)
      if (at >= now - stopBefore) continue
      const kind = random()
      const amount =
        kind < 0.05
          ? -100 * (1 + Math.floor(random() * 40))
          : kind < 0.07
            ? 0
            : 100 * (5 + Math.floor(random() * 60))
      records.push({ at, amount })
    }
  }
  return records
}

/** Instants the figures turn on: the UTC day change (09:00 KST), a month's start, a year's start, anywhere. */
function randomInstant(random: () => number, kind: number): number {
  const year = 2025 + Math.floor(random() * 2)
  const anyDay = Date.UTC(year, Math.floor(random() * 12), 1 + Math.floor(random() * 28))
  const minutes = (n: number) => Math.floor(random() * n) * 60_000 + Math.floor(random() * 60_000)
  switch (kind % 5) {
    case 0: // just after 09:00 KST (00:00 UTC)
      return anyDay + minutes(90) + 1
    case 1: // just before 09:00 KST
      return anyDay - minutes(90) - 1
    case 2: // a month's first hours, and the month before's last
      return Date.UTC(year, Math.floor(random() * 12), 1) + (random() < 0.5 ? 1 : -1) * minutes(600) + 1
    case 3: // the first days of a year: last year's buckets hold the usual and the month before
      return Date.UTC(year, 0, 1 + Math.floor(random() * 20)) + minutes(24 * 60)
    default:
      return anyDay + minutes(24 * 60)
  }
}

async function insertRecords(app: TestApp, storeId: number, records: RecordRow[]) {
  for (let i = 0; i < records.length; i += 2000)
    await app.db
      .insert(usages)
      .values(
        records.slice(i, i + 2000).map(({ at, amount }) => ({ storeId, createdAt: new Date(at), amount })),
      )
}

describe('GET /api/v0/stores/overview: the figures', () => {
  it('equal a reference computed straight from random records, at random instants', async () => {
    const { app } = current
    const trials = 8
    const seed = Number(process.env.OVERVIEW_SEED ?? 20261126)
    let quietSeen = 0
    let usualNull = 0
    for (let trial = 0; trial < trials; trial++) {
      const random = generator(seed * 31 + trial)
      const nowMs = randomInstant(random, trial)
      const userPhone = `0109000${String(trial).padStart(4, '0')}`
      const userId = await addUser(app.db, { phone: userPhone, name: `시험${trial}` })
      // A busy store with 10 weeks of history (stopped for up to 18 hours in half the trials: long enough
      // for the quiet rule's own threshold at 0.5 to 3.5 an hour), a new store (2 to 5 weeks: too
      // little history for the quiet rule), a store with only older records, an empty store.
      const shapes = [
        { from: nowMs - 70 * day, stop: random() < 0.5 ? random() * 18 * hour : 0 },
        { from: nowMs - (14 + random() * 21) * day, stop: random() * 3 * hour },
        { from: nowMs - 120 * day, stop: 45 * day + random() * 30 * day },
        null,
      ]
      const stores: { id: number; records: RecordRow[] }[] = []
      for (const [index, shape] of shapes.entries()) {
        const id = await addStore(app.db, { name: `매장${trial}-${index}` })
        await grant(app.db, userPhone, id, index === 0 ? 'owner' : 'staff')
        const records = shape ? laundromat(random, shape.from, nowMs, shape.stop) : []
        await insertRecords(app, id, records)
        stores.push({ id, records })
      }
      const answer = await app.storesOverview.overview(Number(userId), new Date(nowMs))
      expect(Value.Check(StoresOverviewAnswer, answer)).toBe(true)
      expect(answer.at).toBe(new Date(nowMs).toISOString())
      expect(answer.stores.map(({ id }) => id)).toEqual(stores.map(({ id }) => id))
      for (const [index, store] of stores.entries()) {
        const {
          id,
          devices: storeDevices,
          ...figures
        } = answer.stores[index] as (typeof answer.stores)[number]
        expectClose(
          figures,
          reference(store.records, nowMs),
          `seed ${seed} trial ${trial} store ${index} at ${answer.at}`,
        )
        expect(storeDevices).toEqual({ total: 0, offline: 0 })
        if (figures.quiet) quietSeen++
        if (!figures.usual) usualNull++
      }
    }
    // The random stores reach the rules' branches: quiet stores, and stores without a usual.
    expect(quietSeen).toBeGreaterThan(0)
    expect(usualNull).toBeGreaterThan(0)
  }, 30_000)
})

describe('GET /api/v0/stores/overview: the call', () => {
  async function twoStores(app: TestApp) {
    await addUser(app.db, { phone: owner, name: '김사장' })
    await addUser(app.db, { phone: staff, name: '이직원' })
    await addUser(app.db, { phone: stranger, name: '박손님' })
    const yeoksam = await addStore(app.db, { name: '역삼점' })
    const seolleung = await addStore(app.db, { name: '선릉점' })
    await addStore(app.db, { name: '남의 매장' })
    await grant(app.db, owner, yeoksam, 'owner')
    await grant(app.db, owner, seolleung, 'owner')
    await grant(app.db, staff, seolleung, 'staff')
    return { yeoksam, seolleung }
  }
  const get = (access?: string) =>
    current.app.inject({
      method: 'GET',
      url: '/api/v0/stores/overview',
      headers: access ? bearer(access) : {},
    })

  it("answers each of the caller's stores (members only, the profile's order), at the server's instant", async () => {
    const { app } = current
    const { yeoksam, seolleung } = await twoStores(app)
    await app.db.insert(usages).values([
      { storeId: yeoksam, createdAt: new Date('2026-03-15T01:10:00.000Z'), amount: 4000 },
      { storeId: yeoksam, createdAt: new Date('2026-03-15T02:20:00.000Z'), amount: -1000 },
      { storeId: yeoksam, createdAt: new Date('2026-02-28T23:00:00.000Z'), amount: 3000 },
    ])
    const ownerAnswer = await get((await signIn(app, sms, owner)).access)
    expect(ownerAnswer.statusCode).toBe(200)
    const body = ownerAnswer.json()
    expect(Value.Check(StoresOverviewAnswer, body)).toBe(true)
    expect(body).toEqual({
      at: '2026-03-15T03:00:00.000Z',
      rev: expect.any(Number),
      stores: [
        {
          id: yeoksam,
          today: { sum: 3000, count: 1 },
          usual: null,
          month: { sum: 3000, count: 1 },
          // 1 to 15 March 03:00 against 1 to 15 February 03:00: nothing then.
          previousMonth: null,
          lastSaleAt: '2026-03-15T01:10:00.000Z',
          quiet: null,
          devices: { total: 0, offline: 0 },
        },
        {
          id: seolleung,
          today: { sum: 0, count: 0 },
          usual: null,
          month: { sum: 0, count: 0 },
          previousMonth: null,
          lastSaleAt: null,
          quiet: null,
          devices: { total: 0, offline: 0 },
        },
      ],
    })
    const staffAnswer = (await get((await signIn(app, sms, staff)).access)).json()
    expect(staffAnswer.stores.map((store: { id: number }) => store.id)).toEqual([seolleung])
    expect((await get((await signIn(app, sms, stranger)).access)).json()).toEqual({
      at: '2026-03-15T03:00:00.000Z',
      rev: expect.any(Number),
      stores: [],
    })
  })

  it('refuses a call without a sign-in, in Korean', async () => {
    const response = await get()
    expect(response.statusCode).toBe(401)
    expect(response.json().message).toMatch(/[가-힣]/)
    const bad = await get('not-a-token')
    expect(bad.statusCode).toBe(401)
    expect(bad.json().message).toMatch(/[가-힣]/)
  })

  it('counts paired devices, and those not heard from in 3 heartbeats as offline', async () => {
    const { app } = current
    const { yeoksam, seolleung } = await twoStores(app)
    const now = clock.now().getTime()
    const paired = new Date(now - day)
    const seen = (ms: number) => new Date(now - ms)
    await app.db.insert(devices).values([
      { storeId: yeoksam, name: '방금', pairedAt: paired, lastSeenAt: seen(10_000) },
      { storeId: yeoksam, name: '3번째 심장박동 직전', pairedAt: paired, lastSeenAt: seen(180_000) },
      { storeId: yeoksam, name: '3번 놓침', pairedAt: paired, lastSeenAt: seen(180_001) },
      { storeId: yeoksam, name: '한 번도 안 옴', pairedAt: paired, lastSeenAt: null },
      {
        storeId: yeoksam,
        name: '해제됨',
        pairedAt: paired,
        lastSeenAt: seen(999_999),
        revokedAt: seen(1000),
      },
      { storeId: yeoksam, name: '연결 대기', pairedAt: null, lastSeenAt: null },
      { storeId: seolleung, name: '선릉', pairedAt: paired, lastSeenAt: seen(1000) },
    ])
    const body = (await get((await signIn(app, sms, owner)).access)).json()
    expect(body.stores.map((store: { devices: unknown }) => store.devices)).toEqual([
      { total: 4, offline: 2 },
      { total: 1, offline: 0 },
    ])
  })

  it('a sale moves the answer, rebuilding only its store-year', async () => {
    const { app } = current
    const { yeoksam } = await twoStores(app)
    await app.db.insert(usages).values([
      { storeId: yeoksam, createdAt: new Date('2026-03-14T05:00:00.000Z'), amount: 2000 },
      { storeId: yeoksam, createdAt: new Date('2025-12-01T05:00:00.000Z'), amount: 2000 },
    ])
    const { access } = await signIn(app, sms, owner)
    const before = (await get(access)).json()
    const builds = app.storesOverview.stats.builds
    // Unchanged: nothing is rebuilt.
    expect((await get(access)).json()).toEqual(before)
    expect(app.storesOverview.stats.builds).toBe(builds)

    await app.db
      .insert(usages)
      .values({ storeId: yeoksam, createdAt: new Date('2026-03-15T02:59:00.000Z'), amount: 5000 })
    const after = (await get(access)).json()
    expect(app.storesOverview.stats.builds).toBe(builds + 1)
    expect(after.stores[0]).toEqual({
      ...before.stores[0],
      today: { sum: 5000, count: 1 },
      month: { sum: 7000, count: 2 },
      lastSaleAt: '2026-03-15T02:59:00.000Z',
    })
    expect(after.stores[1]).toEqual(before.stores[1])
    // Time moves the answer too, with nothing rebuilt.
    clock.advance(day)
    const tomorrow = (await get((await signIn(app, sms, owner)).access)).json()
    expect(app.storesOverview.stats.builds).toBe(builds + 1)
    expect(tomorrow.at).toBe('2026-03-16T03:00:00.000Z')
    expect(tomorrow.stores[0].today).toEqual({ sum: 0, count: 0 })
  })
})

describe('GET /api/v0/stores/overview from the view of every store (decision 138)', () => {
  it('answers what the years answer, for random records at random instants of the view’s month, and after sales since the load', async () => {
    const { app } = current
    const seed = Number(process.env.OVERVIEW_SEED ?? 20261126) + 1
    const fromYears = storesOverview(app.db) // no view: every store from its years
    let quietSeen = 0
    let compared = 0
    for (let trial = 0; trial < 6; trial++) {
      const random = generator(seed * 37 + trial)
      const loadAt = randomInstant(random, trial)
      const userPhone = `0109100${String(trial).padStart(4, '0')}`
      const userId = Number(await addUser(app.db, { phone: userPhone, name: `시험${trial}` }))
      const shapes = [
        { from: loadAt - 70 * day, stop: random() < 0.5 ? random() * 18 * hour : 0 },
        { from: loadAt - (14 + random() * 21) * day, stop: random() * 3 * hour },
        { from: loadAt - 120 * day, stop: 45 * day + random() * 30 * day },
        null,
      ]
      const ids: number[] = []
      for (const [index, shape] of shapes.entries()) {
        const id = await addStore(app.db, { name: `매장${trial}-${index}` })
        await grant(app.db, userPhone, id, 'owner')
        await insertRecords(app, id, shape ? laundromat(random, shape.from, loadAt, shape.stop) : [])
        ids.push(id)
      }
      // Loaded as the alert rules load it, at the trial's instant.
      await app.storeViews.upToDate(loadAt, ids)
      const monthStart = Date.UTC(new Date(loadAt).getUTCFullYear(), new Date(loadAt).getUTCMonth(), 1)
      const monthEnd = Date.UTC(new Date(loadAt).getUTCFullYear(), new Date(loadAt).getUTCMonth() + 1, 1)
      const instants = [
        loadAt,
        monthEnd - 1,
        ...[0, 1, 2].map(() => monthStart + Math.floor(random() * (monthEnd - monthStart))),
      ]
      const compare = async (at: number, where: string) => {
        const fromView = app.storesOverview.stats.fromView
        const answer = await app.storesOverview.overview(userId, new Date(at))
        expect(app.storesOverview.stats.fromView - fromView, where).toBe(ids.length)
        expect(answer, where).toEqual(await fromYears.overview(userId, new Date(at)))
        quietSeen += answer.stores.filter((store) => store.quiet).length
        compared++
        return answer
      }
      for (const at of instants)
        await compare(at, `seed ${seed} trial ${trial} at ${new Date(at).toISOString()}`)
      // Sales the view has not seen (the rules refresh it each minute; the overview may not wait): a
      // sale just before an instant, a refund, a sale of the month before, the busy store's latest sale
      // deleted, a device's sale of another store.
      const at = instants[2] as number
      const before = await app.storesOverview.overview(userId, new Date(at))
      await app.db.insert(usages).values([
        { storeId: ids[0] as number, createdAt: new Date(at - 60_000), amount: 7000 },
        { storeId: ids[1] as number, createdAt: new Date(at - 2 * hour), amount: -1500 },
        { storeId: ids[2] as number, createdAt: new Date(monthStart - 3 * day), amount: 4500 },
        { storeId: ids[3] as number, createdAt: new Date(at - 5 * 60_000), amount: 2000 },
      ])
      await app.db.execute(
        sql`delete from usages where id = (select id from usages where store_id = ${ids[1] as number} and amount > 0 order by created_at desc limit 1)`,
      )
      const after = await compare(
        at,
        `seed ${seed} trial ${trial} after sales, at ${new Date(at).toISOString()}`,
      )
      // The view's answer has them (it was brought up to the log first).
      expect(after.stores[0]?.today.sum).toBe((before.stores[0]?.today.sum ?? 0) + 7000)
    }
    expect(compared).toBe(6 * 6)
    expect(quietSeen).toBeGreaterThan(0) // the quiet rule was reached
  }, 60_000)

  it('answers from the years a store added since the load, and every store in a month the view does not cover', async () => {
    const { app } = current
    const userId = Number(await addUser(app.db, { phone: owner, name: '김사장' }))
    const old = await addStore(app.db, { name: '역삼점' })
    await grant(app.db, owner, old, 'owner')
    const now = clock.now().getTime()
    await app.db.insert(usages).values({ storeId: old, createdAt: new Date(now - hour), amount: 3000 })
    await app.storeViews.upToDate(now, [old])
    const added = await addStore(app.db, { name: '선릉점' })
    await grant(app.db, owner, added, 'owner')
    await app.db.insert(usages).values({ storeId: added, createdAt: new Date(now - 2 * hour), amount: 5000 })
    const fromYears = storesOverview(app.db)
    const { fromView } = app.storesOverview.stats
    const builds = app.storesOverview.stats.builds
    const answer = await app.storesOverview.overview(userId, new Date(now))
    expect(answer).toEqual(await fromYears.overview(userId, new Date(now)))
    expect(answer.stores.map((store) => store.today.sum)).toEqual([3000, 5000])
    expect(app.storesOverview.stats.fromView - fromView).toBe(1)
    expect(app.storesOverview.stats.builds - builds).toBe(1) // the added store's year, nothing of the other
    // Next month (before the rules' next load): the view does not cover it, every store from its years.
    const nextMonth = Date.UTC(2026, 3, 1, 1)
    const later = await app.storesOverview.overview(userId, new Date(nextMonth))
    expect(app.storesOverview.stats.fromView - fromView).toBe(1)
    expect(later).toEqual(await fromYears.overview(userId, new Date(nextMonth)))
  })
})
