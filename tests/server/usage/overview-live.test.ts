// The held overview call (decision 110): GET /api/v0/stores/overview?after=REV&wait=S is held until the
// figures of any of the caller's stores would differ, answered at once when `after` is not the current
// `rev`, ended by a logout, refused with Korean messages for bad parameters; on either database, and
// answered from the stores' years and from the view of every store (decision 138).
import { Value } from 'typebox/value'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { StoresOverviewAnswer, StoresOverviewUnchanged } from '../../../contract/api.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { devices, usages } from '../../../server/db/schema.ts'
import { bearer, capturedSms, sharedTestApp, signIn, testClock, until } from '../test-app.ts'

const owner = '01012345678'
const clock = testClock('2026-03-15T03:00:00.000Z')
const sms = capturedSms()
let stores: { yeoksam: number; seolleung: number; other: number }
let fromView = false
const current = sharedTestApp({
  clock,
  sms,
  setup: async (app) => {
    await addUser(app.db, { phone: owner, name: '김사장' })
    const yeoksam = await addStore(app.db, { name: '역삼점' })
    const seolleung = await addStore(app.db, { name: '선릉점' })
    const other = await addStore(app.db, { name: '남의 매장' })
    await grant(app.db, owner, yeoksam, 'owner')
    await grant(app.db, owner, seolleung, 'owner')
    stores = { yeoksam, seolleung, other }
    // Answered from the view of every store, loaded as the alert rules load it (decision 138).
    if (fromView) await app.storeViews.upToDate(clock.now().getTime(), [yeoksam, seolleung, other])
    await app.db
      .insert(usages)
      .values({ storeId: yeoksam, createdAt: new Date('2026-03-15T01:00:00.000Z'), amount: 4000 })
  },
})

const overview = (access: string, query = '') =>
  current.app.inject({ method: 'GET', url: `/api/v0/stores/overview${query}`, headers: bearer(access) })

const sale = (storeId: number, at: string, amount: number) =>
  current.app.db.insert(usages).values({ storeId, createdAt: new Date(at), amount })

describe.each([
  ['the years', false],
  ['the view of every store', true],
])('GET /api/v0/stores/overview with after and wait, answered from %s', (_, view) => {
  let answeredFromView = 0
  beforeAll(() => {
    fromView = view
  })
  afterAll(() => {
    fromView = false
  })
  beforeEach(() => {
    answeredFromView = current.app.storesOverview.stats.fromView
  })
  afterEach(() => {
    // Every answer of the test came from where the block says.
    expect(current.app.storesOverview.stats.fromView > answeredFromView).toBe(view)
  })

  it('says a token of its figures: the same figures, the same token; a sale, another', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const first = overview(access)
    const body = (await first).json()
    expect(Value.Check(StoresOverviewAnswer, body)).toBe(true)
    expect((await overview(access)).json().rev).toBe(body.rev)
    // Unchanged with `after`: the short answer, never cached.
    const same = await overview(access, `?after=${body.rev}`)
    expect(same.json()).toEqual({ at: body.at, rev: body.rev, unchanged: true })
    expect(Value.Check(StoresOverviewUnchanged, same.json())).toBe(true)
    expect(same.headers['cache-control']).toBe('no-store')
    await sale(stores.seolleung, '2026-03-15T02:00:00.000Z', 3000)
    const moved = (await overview(access, `?after=${body.rev}`)).json()
    expect(moved.rev).not.toBe(body.rev)
    expect(moved.stores[1].today).toEqual({ sum: 3000, count: 1 })
  })

  it('keeps its token while only what no row shows moves (the usual is prorated to the millisecond)', async () => {
    // A week ago: a sale before this hour and one within it, so the usual grows with every second.
    await sale(stores.yeoksam, '2026-03-08T01:30:00.000Z', 4000)
    await sale(stores.yeoksam, '2026-03-08T03:10:00.000Z', 6000)
    const { access } = await signIn(current.app, sms, owner)
    const before = (await overview(access)).json()
    clock.advance(1000)
    const same = (await overview(access, `?after=${before.rev}`)).json()
    expect(same).toEqual({ at: '2026-03-15T03:00:01.000Z', rev: before.rev, unchanged: true })
    const figures = (await overview(access)).json()
    expect(figures.stores[0].usual.sum).not.toBe(before.stores[0].usual.sum)
    expect(figures.rev).toBe(before.rev)
    // A minute on, the change against the usual shown in whole percents moves (300% to 290%): a new token.
    clock.advance(59_000)
    expect((await overview(access, `?after=${before.rev}`)).json().rev).not.toBe(before.rev)
  })

  it('a device missing its third heartbeat moves the token by the clock alone (decision 184)', async () => {
    // Held calls read again at each wait's end (25 s at most): the app shows it offline within 3 min 25 s.
    const now = clock.now().getTime()
    await current.app.db.insert(devices).values({
      storeId: stores.yeoksam,
      name: '카운터 옆 결제기',
      pairedAt: new Date(now - 3_600_000),
      lastSeenAt: new Date(now - 170_000),
    })
    const { access } = await signIn(current.app, sms, owner)
    const before = (await overview(access)).json()
    expect(before.stores[0].devices).toEqual({ total: 1, offline: 0 })
    clock.advance(10_001)
    const after = (await overview(access, `?after=${before.rev}`)).json()
    expect(after.rev).not.toBe(before.rev)
    expect(after.stores[0].devices).toEqual({ total: 1, offline: 1 })
  })

  it('answers at once with the figures when `after` is stale', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const { rev } = (await overview(access)).json()
    const started = Date.now()
    const answer = await overview(access, `?after=${rev + 1}&wait=20`)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(answer.json().rev).toBe(rev)
    expect(answer.json().stores).toHaveLength(2)
    expect(current.app.live.held).toBe(0)
  })

  it("is held until a sale in any of the caller's stores, and a sale in another store does not wake it", async () => {
    const { access } = await signIn(current.app, sms, owner)
    const before = (await overview(access)).json()
    let answered = false
    const held = overview(access, `?after=${before.rev}&wait=20`).then((answer) => {
      answered = true
      return answer
    })
    await until(() => current.app.live.held === 1)
    // Someone else's store: nothing for this caller.
    await sale(stores.other, '2026-03-15T02:00:00.000Z', 9000)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(answered).toBe(false)
    // The second of the caller's stores (not the first): it wakes the one call.
    const started = Date.now()
    await sale(stores.seolleung, '2026-03-15T02:30:00.000Z', 2500)
    const answer = await held
    expect(Date.now() - started).toBeLessThan(2_000)
    const body = answer.json()
    expect(Value.Check(StoresOverviewAnswer, body)).toBe(true)
    expect(body.rev).not.toBe(before.rev)
    expect(body.stores[0]).toEqual(before.stores[0])
    expect(body.stores[1].today).toEqual({ sum: 2500, count: 1 })
    expect(current.app.live.held).toBe(0)
  })

  it('a sale of the month before (a figure other than today) wakes it too', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const before = (await overview(access)).json()
    const held = overview(access, `?after=${before.rev}&wait=20`)
    await until(() => current.app.live.held === 1)
    // 1 to 15 February 03:00 is the month before of 1 to 15 March 03:00: a February sale moves `previousMonth`.
    await sale(stores.yeoksam, '2026-02-10T05:00:00.000Z', 7000)
    const body = (await held).json()
    expect(body.stores[0].previousMonth).toEqual({ sum: 7000, count: 1 })
  })

  it('ends at the end of its wait with the short answer when nothing moved', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const { rev, at } = (await overview(access)).json()
    const started = Date.now()
    const answer = await overview(access, `?after=${rev}&wait=1`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    expect(answer.json()).toEqual({ at, rev, unchanged: true })
    expect(current.app.live.held).toBe(0)
  })

  it('answers the figures at the end of its wait when the clock moved them', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const before = (await overview(access)).json()
    const held = overview(access, `?after=${before.rev}&wait=1`)
    await until(() => current.app.live.held === 1)
    // A new UTC day: today's figures start again, with no sale.
    clock.advance(24 * 3_600_000)
    const body = (await held).json()
    expect(body.rev).not.toBe(before.rev)
    expect(body.stores[0].today).toEqual({ sum: 0, count: 0 })
  })

  it('ends with 401 when its sign-in ends (logout)', async () => {
    const { access, refresh } = await signIn(current.app, sms, owner)
    const { rev } = (await overview(access)).json()
    const held = overview(access, `?after=${rev}&wait=20`)
    await until(() => current.app.live.held === 1)
    const started = Date.now()
    const out = await current.app.inject({
      method: 'DELETE',
      url: `/api/v0/user/sign?token=${encodeURIComponent(refresh)}`,
    })
    expect(out.statusCode).toBeLessThan(300)
    const answer = await held
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(answer.statusCode).toBe(401)
    expect(answer.json().message).toMatch(/[가-힣]/)
    expect(current.app.live.held).toBe(0)
  })
})

describe('GET /api/v0/stores/overview with after and wait: refusals', () => {
  it.each([
    ['?after=-1', 'after'],
    ['?after=abc', 'after'],
    ['?after=1.5', 'after'],
    ['?after=Infinity', 'after'],
    ['?after=1&wait=26', 'wait'],
    ['?after=1&wait=-1', 'wait'],
    ['?after=1&wait=x', 'wait'],
    ['?wait=5', 'wait'],
  ])('refuses %s with 400 and a Korean message about %s', async (query, field) => {
    const { access } = await signIn(current.app, sms, owner)
    const answer = await overview(access, query)
    expect(answer.statusCode).toBe(400)
    expect(answer.json().message).toMatch(/[가-힣]/)
    expect(answer.json().message).toContain(field)
  })

  it('refuses a ninth held call of one sign-in with 429 in Korean, held or streamed', async () => {
    const { access, refresh } = await signIn(current.app, sms, owner)
    const { rev } = (await overview(access)).json()
    const held = Array.from({ length: 8 }, () => overview(access, `?after=${rev}&wait=20`))
    await until(() => current.app.live.held === 8)
    for (const accept of ['application/json', 'text/event-stream']) {
      const refused = await current.app.inject({
        method: 'GET',
        url: `/api/v0/stores/overview?after=${rev}&wait=20`,
        headers: { ...bearer(access), accept },
      })
      expect(refused.statusCode, accept).toBe(429)
      expect(refused.json().message).toMatch(/[가-힣]/)
      expect(refused.headers['retry-after']).toBe('5')
    }
    await current.app.inject({
      method: 'DELETE',
      url: `/api/v0/user/sign?token=${encodeURIComponent(refresh)}`,
    })
    for (const answer of await Promise.all(held)) expect(answer.statusCode).toBe(401)
  })

  it('refuses a held call without a sign-in, in Korean', async () => {
    const answer = await current.app.inject({ method: 'GET', url: '/api/v0/stores/overview?after=1&wait=5' })
    expect(answer.statusCode).toBe(401)
    expect(answer.json().message).toMatch(/[가-힣]/)
  })
})
