// The changes call (docs/product.md decisions 77–82): GET /api/v0/store/{id}/usage/changes, its log kept by the usages
// triggers (migration 0007), and the held call woken by a commit, on either database.
import { type SQL, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { queryRows } from '../../../server/db/client.ts'
import { usages } from '../../../server/db/schema.ts'
import { pruneChanges, readChanges } from '../../../server/usage/changes.ts'
import { bearer, capturedSms, sharedTestApp, signIn, type TestApp, testClock, until } from '../test-app.ts'

const owner = '01012345678'
const stranger = '01000000000'
const clock = testClock()
const sms = capturedSms()
let yeoksam = 0
let seolleung = 0
let strangerId = 0

async function setup(app: TestApp) {
  await addUser(app.db, { phone: owner, name: '김사장' })
  strangerId = await addUser(app.db, { phone: stranger, name: '박손님' })
  yeoksam = await addStore(app.db, { name: '역삼점' })
  seolleung = await addStore(app.db, { name: '선릉점' })
  await grant(app.db, owner, yeoksam, 'owner')
  await grant(app.db, owner, seolleung, 'owner')
}

const current = sharedTestApp({ clock, sms, setup, livePollMs: 60_000 })

const changes = (access: string, query: string, store = yeoksam) =>
  current.app.inject({
    method: 'GET',
    url: `/api/v0/store/${store}/usage/changes?${query}`,
    headers: bearer(access),
  })

const sale = (createdAt: string, amount: number, storeId = yeoksam) =>
  current.app.db.insert(usages).values({ storeId, createdAt: new Date(createdAt), amount })

async function revision(access: string, year = 2026, store = yeoksam) {
  const response = await current.app.inject({
    method: 'GET',
    url: `/api/v0/store/${store}/usage?year=${year}`,
    headers: bearer(access),
  })
  expect(response.statusCode).toBe(200)
  return Number(response.headers['usage-revision'])
}

describe('GET /api/v0/store/{id}/usage/changes', () => {
  it('gives the year as puts for after=0, then each later change once, with the checksum', async () => {
    const { access } = await signIn(current.app, sms, owner)
    expect(await revision(access)).toBe(0)
    const empty = await changes(access, 'year=2026&after=0')
    expect(empty.statusCode).toBe(200)
    expect(empty.headers['cache-control']).toBe('no-store')
    // Asked every 25 s by an open screen, so it carries no page's headers (the policy alone is 330 bytes
    // a round): only what a JSON answer needs.
    expect(empty.headers['content-security-policy']).toBeUndefined()
    expect(empty.headers['x-content-type-options']).toBe('nosniff')
    expect(Object.keys(empty.headers).sort()).toEqual(
      [
        'cache-control',
        'connection',
        'content-length',
        'content-type',
        'date',
        'x-content-type-options',
      ].filter((name) => name in empty.headers),
    )
    expect(empty.json()).toEqual({ rev: 0, changes: [], count: 0, sum: 0 })

    await sale('2026-03-01T09:15:00.000Z', 5000)
    await sale('2026-02-28T10:00:00.500Z', 3000)
    const first = (await changes(access, 'year=2026&after=0')).json()
    expect(first).toEqual({
      rev: await revision(access),
      changes: [
        { op: 'put', createdAt: '2026-02-28T10:00:00.500Z', amount: 3000 },
        { op: 'put', createdAt: '2026-03-01T09:15:00.000Z', amount: 5000 },
      ],
      count: 2,
      sum: 8000,
    })

    await current.app.db.execute(sql`update usages set amount = 3500 where amount = 3000`)
    await current.app.db.execute(sql`delete from usages where amount = 5000`)
    await sale('2026-04-01T00:00:00.000Z', 700)
    const next = (await changes(access, `year=2026&after=${first.rev}`)).json()
    expect(next).toEqual({
      rev: await revision(access),
      changes: [
        { op: 'del', createdAt: '2026-02-28T10:00:00.500Z', amount: 3000 },
        { op: 'put', createdAt: '2026-02-28T10:00:00.500Z', amount: 3500 },
        { op: 'del', createdAt: '2026-03-01T09:15:00.000Z', amount: 5000 },
        { op: 'put', createdAt: '2026-04-01T00:00:00.000Z', amount: 700 },
      ],
      count: 2,
      sum: 4200,
    })
    // Nothing newer: no changes, the same revision and checksum.
    expect((await changes(access, `year=2026&after=${next.rev}`)).json()).toEqual({
      rev: next.rev,
      changes: [],
      count: 2,
      sum: 4200,
    })
  })

  it('says the revision in the usage answer, both forms and the 304, and moves it with each change', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const usage = (headers: Record<string, string> = {}) =>
      current.app.inject({
        method: 'GET',
        url: `/api/v0/store/${yeoksam}/usage?year=2026`,
        headers: { ...bearer(access), ...headers },
      })
    await sale('2026-01-02T08:00:00.000Z', 1000)
    const json = await usage()
    const rev = Number(json.headers['usage-revision'])
    expect(rev).toBeGreaterThan(0)
    expect((await changes(access, 'year=2026&after=0')).json().rev).toBe(rev)
    const compact = await usage({ accept: 'application/vnd.laundry.usage; v=1' })
    expect(compact.headers['usage-revision']).toBe(String(rev))
    const notModified = await usage({ 'if-none-match': String(json.headers.etag) })
    expect(notModified.statusCode).toBe(304)
    expect(notModified.headers['usage-revision']).toBe(String(rev))
    await sale('2026-01-03T08:00:00.000Z', 1000)
    expect(Number((await usage()).headers['usage-revision'])).toBeGreaterThan(rev)
  })

  it("puts a sale of 31 December sent in January into last year's log, and never another store's", async () => {
    const { access } = await signIn(current.app, sms, owner)
    await sale('2026-01-02T08:00:00.000Z', 1000)
    const rev2026 = await revision(access, 2026)
    const rev2025 = await revision(access, 2025)
    await sale('2025-12-31T23:59:59.999Z', 4000)
    await sale('2026-01-02T09:00:00.000Z', 9000, seolleung)
    expect((await changes(access, `year=2026&after=${rev2026}`)).json()).toEqual({
      rev: rev2026,
      changes: [],
      count: 1,
      sum: 1000,
    })
    const last = (await changes(access, `year=2025&after=${rev2025}`)).json()
    expect(last.changes).toEqual([{ op: 'put', createdAt: '2025-12-31T23:59:59.999Z', amount: 4000 }])
    expect(last).toMatchObject({ count: 1, sum: 4000 })
    const other = (await changes(access, 'year=2026&after=0', seolleung)).json()
    expect(other.changes).toEqual([{ op: 'put', createdAt: '2026-01-02T09:00:00.000Z', amount: 9000 }])
  })

  it('says reset when after is above the revision, older than the log keeps, or before a rewrite', async () => {
    const { access } = await signIn(current.app, sms, owner)
    await sale('2026-01-02T08:00:00.000Z', 1000)
    const rev = await revision(access)
    expect((await changes(access, `year=2026&after=${rev + 1}`)).json()).toEqual({ rev, reset: true })

    // A statement of more than 1,000 records of the year logs one reset instead.
    await current.app.db.execute(
      sql`insert into usages (store_id, created_at, amount)
          select ${yeoksam}, '2026-05-01T00:00:00Z'::timestamptz + n * interval '1 minute', 100
          from generate_series(1, 1001) n`,
    )
    const rewritten = await revision(access)
    expect((await changes(access, `year=2026&after=${rev}`)).json()).toEqual({ rev: rewritten, reset: true })
    const [logged] = await queryRows<{ n: number }>(
      current.app.db,
      sql`select count(*)::int as n from usage_changes where store_id = ${yeoksam} and year = 2026`,
    )
    expect(logged?.n).toBe(2)
    // From the rewrite's revision on, changes are logged one by one again.
    await sale('2026-06-01T00:00:00.000Z', 50)
    const after = (await changes(access, `year=2026&after=${rewritten}`)).json()
    expect(after.changes).toEqual([{ op: 'put', createdAt: '2026-06-01T00:00:00.000Z', amount: 50 }])
    expect(after).toMatchObject({ count: 1003, sum: 1000 + 100_100 + 50 })

    // Kept 3 days: pruned, an older `after` is a reset, a current one is not.
    const pruneAt = new Date(Date.now() + 3 * 24 * 60 * 60 * 1000 + 60_000)
    expect(await pruneChanges(current.app.db, pruneAt)).toBe(3)
    const now = await revision(access)
    expect((await changes(access, `year=2026&after=${rewritten}`)).json()).toEqual({ rev: now, reset: true })
    expect((await changes(access, `year=2026&after=${now}`)).json()).toMatchObject({ rev: now, changes: [] })
  })

  it('refuses bad parameters with Korean messages, strangers with 403, no bearer with 401', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const bad = {
      'year=1999&after=0': '조회할 연도가 올바르지 않습니다.',
      'after=0': '조회할 연도가 올바르지 않습니다.',
      'year=2026': 'after는 0 이상의 정수(받은 리비전)여야 합니다.',
      'year=2026&after=-1': 'after는 0 이상의 정수(받은 리비전)여야 합니다.',
      'year=2026&after=1.5': 'after는 0 이상의 정수(받은 리비전)여야 합니다.',
      'year=2026&after=Infinity': 'after는 0 이상의 정수(받은 리비전)여야 합니다.',
      'year=2026&after=0&wait=26': 'wait는 0~25 사이의 정수(초)여야 합니다.',
      'year=2026&after=0&wait=-1': 'wait는 0~25 사이의 정수(초)여야 합니다.',
      'year=2026&after=0&wait=x': 'wait는 0~25 사이의 정수(초)여야 합니다.',
    }
    for (const [query, message] of Object.entries(bad)) {
      const response = await changes(access, query)
      expect(response.statusCode, query).toBe(400)
      expect(response.json(), query).toEqual({ message })
    }
    const stranger_ = await signIn(current.app, sms, stranger)
    const refused = await changes(stranger_.access, 'year=2026&after=0')
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual({ message: '이 매장의 매출을 볼 권한이 없습니다.' })
    expect((await changes(access, 'year=2026&after=0', 999)).statusCode).toBe(403)
    const unsigned = await current.app.inject({
      method: 'GET',
      url: `/api/v0/store/${yeoksam}/usage/changes?year=2026&after=0`,
    })
    expect(unsigned.statusCode).toBe(401)
  })

  it("reads none of a store's records or changes for a caller who is not its member", async () => {
    await sale('2026-03-01T01:00:00Z', 1000)
    const { db } = current.app
    const dialect = (db as unknown as { dialect: { sqlToQuery(query: SQL): { sql: string } } }).dialect
    const statements: string[] = []
    const watched = new Proxy(db, {
      get(target, property, receiver) {
        if (property !== 'execute') return Reflect.get(target, property, receiver)
        return (query: SQL) => {
          statements.push(dialect.sqlToQuery(query).sql)
          return target.execute(query)
        }
      },
    })
    for (const after of [0, 1]) {
      statements.length = 0
      expect(await readChanges(watched, strangerId, yeoksam, 2026, after)).toEqual({
        member: false,
        hidden: false,
      })
      // Asking for another's store costs what asking for no store does: a look at the memberships.
      expect(statements.filter((text) => /\b(usages|usage_changes|usage_years)\b/.test(text))).toEqual([])
    }
  })

  it('holds a call until a change of its store-year commits, and answers at once when one exists', async () => {
    const { access } = await signIn(current.app, sms, owner)
    await sale('2026-01-02T08:00:00.000Z', 1000)
    const rev = await revision(access)
    const started = Date.now()
    const held = changes(access, `year=2026&after=${rev}&wait=20`)
    await until(() => current.app.live.held === 1)
    // Another store's sale and another year's do not answer it.
    await sale('2026-01-03T08:00:00.000Z', 5, seolleung)
    await sale('2025-01-03T08:00:00.000Z', 5)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(current.app.live.held).toBe(1)
    await sale('2026-01-03T08:00:00.000Z', 2000)
    const answer = (await held).json()
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(answer).toEqual({
      rev: await revision(access),
      changes: [{ op: 'put', createdAt: '2026-01-03T08:00:00.000Z', amount: 2000 }],
      count: 2,
      sum: 3000,
    })
    expect(current.app.live.held).toBe(0)
    // Something newer than `after` already: answered without waiting.
    const at = Date.now()
    expect((await changes(access, `year=2026&after=${rev}&wait=20`)).json().changes).toHaveLength(1)
    expect(Date.now() - at).toBeLessThan(2_000)
  })

  it('holds at most 8 calls of one sign-in at a time, then answers 429 in Korean until one ends', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const rev = await revision(access)
    const heldBefore = current.app.live.held
    const held = Array.from({ length: 8 }, () => changes(access, `year=2026&after=${rev}&wait=25`))
    await until(() => current.app.live.held === heldBefore + 8)
    for (const accept of ['application/json', 'text/event-stream']) {
      const refused = await current.app.inject({
        method: 'GET',
        url: `/api/v0/store/${yeoksam}/usage/changes?year=2026&after=${rev}&wait=25`,
        headers: { ...bearer(access), accept },
      })
      expect(refused.statusCode, accept).toBe(429)
      expect(refused.json()).toEqual({
        message: '실시간 요청이 너무 많이 열려 있습니다. 잠시 후 다시 시도해 주세요.',
      })
      expect(refused.headers['retry-after']).toBe('5')
    }
    // Another sign-in (another browser) is not held back, nor is a call that does not wait.
    const other = await signIn(current.app, sms, owner)
    expect((await changes(other.access, `year=2026&after=${rev}&wait=0`)).statusCode).toBe(200)
    expect((await changes(access, `year=2026&after=${rev}&wait=0`)).statusCode).toBe(200)
    await sale('2026-03-01T02:00:00Z', 2000)
    for (const answer of await Promise.all(held)) expect(answer.statusCode).toBe(200)
    await until(() => current.app.live.held === heldBefore)
    const again = changes(access, `year=2026&after=${rev + 1}&wait=1`)
    expect((await again).statusCode).toBe(200)
  })

  it('answers a held call at the end of its wait with no changes', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const started = Date.now()
    const answer = await changes(access, 'year=2026&after=0&wait=1')
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    expect(answer.json()).toEqual({ rev: 0, changes: [], count: 0, sum: 0 })
    expect(current.app.live.held).toBe(0)
  })

  it('ends a held call with 401 when its sign-in ends (logout)', async () => {
    const { access, refresh } = await signIn(current.app, sms, owner)
    const held = changes(access, 'year=2026&after=0&wait=20')
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
    expect(current.app.live.held).toBe(0)
  })
})

describe('the log, against a plain reading of the records', () => {
  it('replayed from any revision over random inserts, updates (across years too) and deletes, equals the records', async () => {
    const { access } = await signIn(current.app, sms, owner)
    let seed = 20261126
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    const years = [2025, 2026]
    const stores = [yeoksam, seolleung]
    const instant = () => {
      const year = years[Math.floor(random() * 2)] as number
      return new Date(Date.UTC(year, 0, 1) + Math.floor(random() * 365 * 86_400_000)).toISOString()
    }
    // What each store-year's client holds: its revision and its records (a multiset of "createdAt amount").
    const clients = new Map<string, { rev: number; records: Map<string, number> }>()
    const key = (store: number, year: number) => `${store}:${year}`
    for (const store of stores)
      for (const year of years) clients.set(key(store, year), { rev: 0, records: new Map() })

    for (let step = 0; step < 30; step++) {
      const kind = random()
      if (kind < 0.5) {
        const rows = Array.from({ length: 1 + Math.floor(random() * 5) }, () => ({
          storeId: stores[Math.floor(random() * 2)] as number,
          createdAt: new Date(instant()),
          amount: Math.floor(random() * 20_000) - 2_000,
        }))
        await current.app.db.insert(usages).values(rows)
      } else if (kind < 0.75) {
        // Some records move to another time, perhaps another year, and change their amount.
        await current.app.db.execute(
          sql`update usages set amount = amount + 7,
                created_at = created_at + (${Math.floor(random() * 200) - 100} * interval '1 day')
              where id % 3 = ${step % 3}`,
        )
      } else {
        await current.app.db.execute(sql`delete from usages where id % 4 = ${step % 4}`)
      }

      for (const store of stores) {
        for (const year of years) {
          const client = clients.get(key(store, year)) as { rev: number; records: Map<string, number> }
          const answer = (await changes(access, `year=${year}&after=${client.rev}`, store)).json()
          expect(answer.reset).toBeUndefined()
          for (const change of answer.changes as { op: string; createdAt: string; amount: number }[]) {
            const record = `${change.createdAt} ${change.amount}`
            const held = client.records.get(record) ?? 0
            if (change.op === 'put') client.records.set(record, held + 1)
            else if (held <= 1) client.records.delete(record)
            else client.records.set(record, held - 1)
          }
          client.rev = answer.rev
          const truth = await queryRows<{ at: string; amount: number }>(
            current.app.db,
            sql`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, amount
                from usages where store_id = ${store}
                  and created_at >= ${`${year}-01-01T00:00:00Z`} and created_at < ${`${year + 1}-01-01T00:00:00Z`}`,
          )
          const expected = new Map<string, number>()
          for (const row of truth) {
            const record = `${row.at} ${row.amount}`
            expected.set(record, (expected.get(record) ?? 0) + 1)
          }
          expect(client.records).toEqual(expected)
          expect(answer.count).toBe(truth.length)
          expect(answer.sum).toBe(truth.reduce((total, row) => total + row.amount, 0))
          // A fresh client (after=0) gets the same.
          const fresh = (await changes(access, `year=${year}&after=0`, store)).json()
          expect(fresh).toMatchObject({ rev: answer.rev, count: truth.length })
        }
      }
    }
  })
})
