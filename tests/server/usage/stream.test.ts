// The streamed held calls (docs/product.md decision 133) over real HTTP/1.1, on either database: asked
// with `Accept: text/event-stream`, the changes call and the overview call answer a stream whose events
// are the held call's answers, sent as the commits happen and not held back by compression; a comment
// when nothing else was sent for the heartbeat's interval; the stream ends at logout, at the access
// token's expiry, after a reset and at the server's close (within 2 s); refusals are the same 4xx as
// today, and without event-stream in Accept the held call answers exactly as before.
import http from 'node:http'
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import type { StoreOverview, StoresOverviewAnswer } from '../../../contract/api.ts'
import { figuresAt, withChange } from '../../../domain/overview-clock.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { usages } from '../../../server/db/schema.ts'
import { heldPerSignIn } from '../../../server/live/live.ts'
import { wantsStream } from '../../../server/live/stream.ts'
import { bearer, createTestApp, resetDatabase, type TestApp, testClock, until } from '../test-app.ts'
import { openStream } from './stream-client.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
const heartbeatMs = 300
let opened: TestApp | null = null
afterEach(async () => {
  await opened?.close()
  opened = null
  clock.set()
})

async function listening() {
  const app = await createTestApp({ clock, streamHeartbeatMs: heartbeatMs, livePollMs: 60_000 })
  opened = app
  await resetDatabase(app)
  const ownerId = await addUser(app.db, { phone: '01012345678', name: '김사장' })
  const strangerId = await addUser(app.db, { phone: '01000000000', name: '박손님' })
  const storeId = await addStore(app.db, { name: '역삼점' })
  const otherStoreId = await addStore(app.db, { name: '선릉점' })
  await grant(app.db, '01012345678', storeId, 'owner')
  await grant(app.db, '01012345678', otherStoreId, 'owner')
  const owner = await app.tokens.start(ownerId)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const changesUrl = (after: number, store = storeId) =>
    `${address}/api/v0/store/${store}/usage/changes?year=2026&after=${after}&wait=25`
  const sale = (createdAt: string, amount: number, store = storeId) =>
    app.db.insert(usages).values({ storeId: store, createdAt: new Date(createdAt), amount })
  const stranger = await app.tokens.start(strangerId)
  return { app, address, storeId, otherStoreId, owner, stranger, changesUrl, sale }
}

describe('wantsStream', () => {
  it('takes text/event-stream in Accept unless refused with q=0', () => {
    expect(wantsStream('text/event-stream')).toBe(true)
    expect(wantsStream('application/json, Text/Event-Stream ; q=0.5')).toBe(true)
    expect(wantsStream('text/event-stream;q=0')).toBe(false)
    expect(wantsStream('application/json')).toBe(false)
    expect(wantsStream('*/*')).toBe(false)
    expect(wantsStream(undefined)).toBe(false)
  })
})

describe('the changes call as a stream', () => {
  it('sends each change as it commits, one event each, before the stream ends, uncompressed', async () => {
    const { app, owner, changesUrl, sale, storeId, otherStoreId } = await listening()
    await sale('2026-03-01T09:00:00.000Z', 1000)
    const stream = await openStream(changesUrl(0), {
      ...bearer(owner.access),
      'accept-encoding': 'gzip, deflate, br',
    })
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream')
    expect(stream.response.headers.get('cache-control')).toBe('no-store')
    expect(stream.response.headers.get('content-encoding')).toBeNull()
    // after=0: the year's records as puts, at once, as the held call would answer.
    await until(() => stream.events().length === 1)
    const [first] = stream.events() as { rev: number }[]
    expect(first).toMatchObject({
      changes: [{ op: 'put', createdAt: '2026-03-01T09:00:00.000Z', amount: 1000 }],
      count: 1,
      sum: 1000,
    })
    // Another store's sale sends nothing; each sale of this store-year one event, while the stream is open.
    await sale('2026-03-01T10:00:00.000Z', 7, otherStoreId)
    await sale('2026-03-02T09:00:00.000Z', 2000)
    await until(() => stream.events().length === 2)
    await sale('2026-03-03T09:00:00.000Z', 3000)
    await until(() => stream.events().length === 3)
    expect(stream.state.ended).toBe(false)
    const [, second, third] = stream.events() as { rev: number }[]
    expect(second).toMatchObject({
      changes: [{ op: 'put', createdAt: '2026-03-02T09:00:00.000Z', amount: 2000 }],
      count: 2,
      sum: 3000,
    })
    expect(third).toMatchObject({ changes: [{ amount: 3000 }], count: 3, sum: 6000 })
    // Each event is exactly the held call's answer after the revision before it.
    const held = await app.inject({
      method: 'GET',
      url: `/api/v0/store/${storeId}/usage/changes?year=2026&after=${first?.rev}`,
      headers: bearer(owner.access),
    })
    expect(held.json()).toMatchObject({ changes: [{ amount: 2000 }, { amount: 3000 }], count: 3 })
    expect(app.live.held).toBe(1)
  })

  it('sends a comment when nothing was sent for the heartbeat interval, and no more than that', async () => {
    const { owner, changesUrl, sale } = await listening()
    const stream = await openStream(changesUrl(0), bearer(owner.access))
    const opened = Date.now()
    await new Promise((resolve) => setTimeout(resolve, heartbeatMs * 5.5))
    // The first comment opens the stream (no changes after 0 yet); then one each interval.
    const comments = stream.comments()
    expect(comments.length).toBeGreaterThanOrEqual(4)
    expect(comments.length).toBeLessThanOrEqual(7)
    const gaps = comments.slice(1).map((c, i) => c.at - (comments[i]?.at ?? opened))
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(heartbeatMs - 50)
      expect(gap).toBeLessThan(heartbeatMs * 3)
    }
    // An event counts as something sent: no comment right after it.
    await sale('2026-03-02T09:00:00.000Z', 2000)
    await until(() => stream.events().length === 1)
    const eventAt = stream.received.at(-1)?.at ?? 0
    await until(() => stream.received.length > comments.length + 1)
    expect((stream.received.at(-1)?.at ?? 0) - eventAt).toBeGreaterThanOrEqual(heartbeatMs - 50)
    expect(stream.state.ended).toBe(false)
  })

  it('ends when the sign-in ends (logout)', async () => {
    const { app, owner, changesUrl } = await listening()
    const stream = await openStream(changesUrl(0), bearer(owner.access))
    await until(() => app.live.held === 1)
    const out = await app.inject({
      method: 'DELETE',
      url: `/api/v0/user/sign?token=${encodeURIComponent(owner.refresh)}`,
    })
    expect(out.statusCode).toBe(204)
    const started = Date.now()
    await stream.done
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(stream.state.error).toBeNull()
    expect(stream.rest()).toBe('')
    expect(app.live.held).toBe(0)
    // Asked again: refused as the held call is.
    expect((await fetch(changesUrl(0), { headers: bearer(owner.access) })).status).toBe(401)
  })

  it('ends when the access token it was opened with expires', async () => {
    const { app, owner, changesUrl } = await listening()
    const stream = await openStream(changesUrl(0), bearer(owner.access))
    await until(() => app.live.held === 1)
    await new Promise((resolve) => setTimeout(resolve, heartbeatMs * 2))
    expect(stream.state.ended).toBe(false)
    // 900 s on the app's clock: the token's end, seen at the next heartbeat's turn at the latest.
    clock.advance(900_000)
    await stream.done
    expect(stream.state.error).toBeNull()
    expect(app.live.held).toBe(0)
  })

  it('sends a reset and ends: the client fetches the year again', async () => {
    const { app, owner, changesUrl, storeId, sale } = await listening()
    await sale('2026-03-01T09:00:00.000Z', 1000)
    const { rev } = (await (
      await fetch(changesUrl(0).replace('wait=25', 'wait=0'), { headers: bearer(owner.access) })
    ).json()) as { rev: number }
    const stream = await openStream(changesUrl(rev), bearer(owner.access))
    await until(() => app.live.held === 1)
    // A statement of more than 1,000 records logs a reset (decision 78).
    await app.db.execute(
      sql`insert into usages (store_id, created_at, amount)
          select ${storeId}, timestamp '2026-02-01' + n * interval '1 minute', 100 from generate_series(1, 1001) n`,
    )
    await stream.done
    const [reset] = stream.events() as { rev: number; reset?: boolean }[]
    expect(reset).toEqual({ rev: expect.any(Number), reset: true })
    expect(stream.events()).toHaveLength(1)
  })

  it('refuses as the held call does: a stranger 403, no bearer 401, bad parameters 400, all JSON in Korean', async () => {
    const { app, changesUrl, stranger } = await listening()
    const strangerAccess = stranger.access
    for (const [headers, url, status, message] of [
      [bearer(strangerAccess), changesUrl(0), 403, '이 매장의 매출을 볼 권한이 없습니다.'],
      [{}, changesUrl(0), 401, '로그인이 필요합니다.'],
      [
        bearer(strangerAccess),
        changesUrl(0).replace('wait=25', 'wait=26'),
        400,
        'wait는 0~25 사이의 정수(초)여야 합니다.',
      ],
    ] as const) {
      const response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' } })
      expect(response.status).toBe(status)
      expect(response.headers.get('content-type')).toContain('application/json')
      expect(await response.json()).toEqual({ message })
    }
    expect(app.live.held).toBe(0)
  })

  it('without event-stream in Accept, answers the held call exactly as before', async () => {
    const { app, owner, storeId, sale } = await listening()
    await sale('2026-03-01T09:00:00.000Z', 1000)
    const url = `/api/v0/store/${storeId}/usage/changes?year=2026&after=0&wait=25`
    const plain = await app.inject({ method: 'GET', url, headers: bearer(owner.access) })
    for (const accept of ['application/json', '*/*', 'text/event-stream;q=0, application/json']) {
      const other = await app.inject({ method: 'GET', url, headers: { ...bearer(owner.access), accept } })
      expect(other.statusCode).toBe(200)
      expect(other.body).toBe(plain.body)
      const { date: _a, ...otherHeaders } = other.headers
      const { date: _b, ...plainHeaders } = plain.headers
      expect(otherHeaders).toEqual(plainHeaders)
    }
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8')
    // And with wait=0 a stream is not offered: one answer.
    const once = await app.inject({
      method: 'GET',
      url: url.replace('wait=25', 'wait=0'),
      headers: { ...bearer(owner.access), accept: 'text/event-stream' },
    })
    expect(once.body).toBe(plain.body)
  })

  it('ends every stream when the server closes, which completes within 2 s; aborted streams leave nothing', async () => {
    const { app, owner, changesUrl } = await listening()
    // Clients that go away (node:http, one connection each: fetch may keep spare connections open).
    // As many as one sign-in may hold (decision 150).
    const requests = Array.from({ length: heldPerSignIn }, () =>
      http
        .get(changesUrl(0), {
          agent: false,
          headers: { ...bearer(owner.access), accept: 'text/event-stream' },
        })
        .on('error', () => {}),
    )
    await until(() => app.live.held === heldPerSignIn)
    for (const request of requests) request.destroy()
    await until(() => app.live.held === 0)
    const streams = await Promise.all(
      Array.from({ length: 5 }, () => openStream(changesUrl(0), bearer(owner.access))),
    )
    await until(() => app.live.held === 5)
    const started = Date.now()
    opened = null
    await app.close()
    expect(Date.now() - started).toBeLessThan(2_000)
    await Promise.all(streams.map((stream) => stream.done))
    for (const stream of streams) expect(stream.state.error).toBeNull()
  })
})

describe('the overview call as a stream', () => {
  it("sends the new overview on a sale of any of the caller's stores, comments otherwise, and ends at logout", async () => {
    const { app, address, owner, otherStoreId, sale } = await listening()
    const overview = await app.inject({
      method: 'GET',
      url: '/api/v0/stores/overview',
      headers: bearer(owner.access),
    })
    const { rev } = overview.json()
    const stream = await openStream(
      `${address}/api/v0/stores/overview?after=${rev}&wait=25`,
      bearer(owner.access),
    )
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream')
    await new Promise((resolve) => setTimeout(resolve, heartbeatMs * 2.5))
    expect(stream.events()).toEqual([])
    expect(stream.comments().length).toBeGreaterThanOrEqual(2)
    await sale('2026-03-15T02:30:00.000Z', 4000, otherStoreId)
    await until(() => stream.events().length === 1)
    const [event] = stream.events() as { rev: number; stores: { today: unknown }[] }[]
    expect(event?.rev).not.toBe(rev)
    // The same JSON as the held call's answer.
    const held = await app.inject({
      method: 'GET',
      url: `/api/v0/stores/overview?after=${rev}`,
      headers: bearer(owner.access),
    })
    expect(event).toEqual(held.json())
    expect(event?.stores.map((store) => store.today)).toContainEqual({ sum: 4000, count: 1 })
    await app.inject({
      method: 'DELETE',
      url: `/api/v0/user/sign?token=${encodeURIComponent(owner.refresh)}`,
    })
    await stream.done
    expect(app.live.held).toBe(0)
  })

  it('with stores=changed, sends after its first event only the stores that changed, on the event before', async () => {
    const { app, address, owner, storeId, otherStoreId, sale } = await listening()
    const read = async (after?: number) =>
      (
        await app.inject({
          method: 'GET',
          url: `/api/v0/stores/overview${after === undefined ? '' : `?after=${after}`}`,
          headers: bearer(owner.access),
        })
      ).json() as StoresOverviewAnswer
    const kept = await read()
    await sale('2026-03-15T02:00:00.000Z', 1000, storeId)
    // Asked after an older rev: the first event has every store, whatever `stores` says.
    const stream = await openStream(
      `${address}/api/v0/stores/overview?after=${kept.rev}&wait=25&stores=changed`,
      bearer(owner.access),
    )
    await until(() => stream.events().length === 1)
    let shown = stream.events()[0] as StoresOverviewAnswer
    expect(shown).toEqual(await read(kept.rev))
    await sale('2026-03-15T02:30:00.000Z', 4000, otherStoreId)
    await until(() => stream.events().length === 2)
    const changed = stream.events()[1] as StoresOverviewAnswer & { after: number }
    expect(changed.after).toBe(shown.rev)
    expect(changed.stores.map(({ id }) => id)).toEqual([otherStoreId])
    // Taken into the overview shown, it is the overview of every store, figure for figure.
    const merge = (event: typeof changed) => ({
      at: event.at,
      rev: event.rev,
      stores: shown.stores.map((store) => event.stores.find(({ id }) => id === store.id) ?? store),
    })
    shown = merge(changed)
    expect(shown).toEqual(await read(kept.rev))
    await sale('2026-03-15T02:40:00.000Z', 2500, storeId)
    await until(() => stream.events().length === 3)
    const next = stream.events()[2] as typeof changed
    expect(next.after).toBe(changed.rev)
    expect(next.stores.map(({ id }) => id)).toEqual([storeId])
    shown = merge(next)
    expect(shown).toEqual(await read(kept.rev))
    // Without it, every event carries every store (the test above); anything else is refused in Korean.
    const bad = await app.inject({
      method: 'GET',
      url: `/api/v0/stores/overview?after=${kept.rev}&wait=25&stores=all`,
      headers: { ...bearer(owner.access), accept: 'text/event-stream' },
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toEqual({ message: 'stores는 changed만 보낼 수 있습니다.' })
  })

  it("with clock=1, sends each store's clock once, then only what moved, never the clock's own moves (decision 237)", async () => {
    const { app, address, owner, storeId, otherStoreId, sale } = await listening()
    // The usual (the same Sunday of the weeks before) and the month before's 15th, around 03:00.
    for (const [createdAt, amount] of [
      ['2026-03-08T03:10:00.000Z', 4000],
      ['2026-03-08T03:50:00.000Z', 5000],
      ['2026-03-01T03:20:00.000Z', 3000],
      ['2026-02-15T03:30:00.000Z', 6000],
      ['2026-03-15T02:10:00.000Z', 4500],
    ] as const)
      await sale(createdAt, amount)
    await sale('2026-02-15T03:05:00.000Z', 2000, otherStoreId)
    const read = async () =>
      (
        await app.inject({ method: 'GET', url: '/api/v0/stores/overview', headers: bearer(owner.access) })
      ).json() as StoresOverviewAnswer
    const kept = await read()
    const stream = await openStream(
      `${address}/api/v0/stores/overview?after=${kept.rev}&wait=25&stores=changed&clock=1`,
      bearer(owner.access),
    )
    // The client shows this very overview: the first event is each store's clock, nothing else.
    await until(() => stream.events().length === 1)
    const first = stream.events()[0] as StoresOverviewAnswer & { after: number }
    expect(first.after).toBe(kept.rev)
    expect(first.stores.map((store) => Object.keys(store).sort())).toEqual([
      ['clock', 'id'],
      ['clock', 'id'],
    ])
    let shown: StoreOverview[] = kept.stores.map((store, at) =>
      withChange(store, first.stores[at] as StoreOverview),
    )
    // What the app shows at an instant: the rows moved by their clocks.
    const moved = (at: string) =>
      shown.map(({ clock: storeClock, ...store }) => ({
        ...store,
        ...figuresAt(store, storeClock as NonNullable<typeof storeClock>, Date.parse(at)),
      }))
    // 13 minutes on (within the access token's 15): the usual and the month before grew; the stream sent comments only.
    clock.set('2026-03-15T03:13:00.000Z')
    const later = await read()
    expect(later.stores[0]?.usual).not.toEqual(kept.stores[0]?.usual)
    expect(later.stores[0]?.previousMonth).not.toEqual(kept.stores[0]?.previousMonth)
    await new Promise((resolve) => setTimeout(resolve, 4 * heartbeatMs))
    expect(stream.events()).toHaveLength(1)
    expect(moved(later.at)).toEqual(later.stores)
    // A sale: the store's figures a sale moves, and the instant it would turn quiet if it has one; no clock.
    await sale('2026-03-15T03:12:00.000Z', 7000, otherStoreId)
    await until(() => stream.events().length === 2)
    const next = stream.events()[1] as { rev: number; after: number; stores: StoreOverview[] }
    expect(next.after).toBe(first.rev)
    expect(next.stores.map(({ id }) => id)).toEqual([otherStoreId])
    expect(Object.keys(next.stores[0] as object).sort()).toEqual(['id', 'lastSaleAt', 'month', 'today'])
    shown = shown.map((store) => {
      const change = next.stores.find(({ id }) => id === store.id)
      return change ? withChange(store, change) : store
    })
    const afterSale = await read()
    expect(moved(afterSale.at)).toEqual(afterSale.stores)
    expect(storeId).not.toBe(otherStoreId)
    const bad = await app.inject({
      method: 'GET',
      url: `/api/v0/stores/overview?after=${kept.rev}&wait=25&stores=changed&clock=2`,
      headers: { ...bearer(owner.access), accept: 'text/event-stream' },
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toEqual({ message: 'clock은 1만 보낼 수 있습니다.' })
    await app.inject({
      method: 'DELETE',
      url: `/api/v0/user/sign?token=${encodeURIComponent(owner.refresh)}`,
    })
    await stream.done
  })
})
