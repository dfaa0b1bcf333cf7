// Live changes with several instances on one PostgreSQL (decision 81): revisions follow the commit order a
// store-year's row lock enforces (a reader never gets N+1 without N); a commit on one instance wakes
// a held call on the other; a logout on one ends a held call on the other; the listening connection
// comes back after its backend is killed.
import pg from 'pg'
import { beforeEach, describe, expect, it } from 'vitest'
import { pruneChanges } from '../../../server/usage/changes.ts'
import { pairedDevice, postSales, storeWithPeople } from '../devices/helpers.ts'
import {
  bearer,
  postgresUrlOf,
  resetDatabase,
  type TestApp,
  testClock,
  twoInstances,
  until,
  withAnotherInstance,
} from '../test-app.ts'
import { openStream } from './stream-client.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
let one: TestApp
let two: TestApp
let people: Awaited<ReturnType<typeof storeWithPeople>>

// The safety poll is slowed down to a minute: every wake below comes from a notification.
twoInstances({ clock, livePollMs: 60_000 }, (apps) => {
  one = apps.one
  two = apps.two
})
beforeEach(async () => {
  await resetDatabase(one)
  people = await storeWithPeople(one)
})

const changes = (app: TestApp, access: string, query: string, store = people.storeId) =>
  app.inject({ method: 'GET', url: `/api/v0/store/${store}/usage/changes?${query}`, headers: bearer(access) })

async function client(app: TestApp) {
  const connection = new pg.Client({ connectionString: postgresUrlOf(app) })
  await connection.connect()
  return connection
}

const insertSale = (connection: pg.Client, storeId: number, at: string, amount: number) =>
  connection.query<{ version: string }>(
    `with added as (insert into usages (store_id, created_at, amount) values ($1, $2, $3) returning 1)
     select (select count(*) from added) as n`,
    [storeId, at, amount],
  )

const versionIn = async (connection: pg.Client, storeId: number, year: number) =>
  Number(
    (
      await connection.query<{ version: string }>(
        'select version from usage_years where store_id = $1 and year = $2',
        [storeId, year],
      )
    ).rows[0]?.version ?? 0,
  )

describe('revisions on PostgreSQL', () => {
  it('are taken under the store-year lock: a writer waits for the one holding it, and a reader never gets N+1 without N', async () => {
    const a = await client(one)
    const b = await client(one)
    try {
      const before = (await changes(one, people.owner, 'year=2026&after=0')).json().rev as number
      await a.query('begin')
      await insertSale(a, people.storeId, '2026-03-15T01:00:00Z', 1000)
      const revA = await versionIn(a, people.storeId, 2026)
      expect(revA).toBeGreaterThan(before)

      // B writes the same store-year: its statement waits on the row A holds.
      await b.query('begin')
      let bDone = false
      const bInsert = insertSale(b, people.storeId, '2026-03-15T02:00:00Z', 2000).then(() => {
        bDone = true
      })
      const watcher = await client(one)
      await until(async () => {
        const { rows } = await watcher.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
        )
        return (rows[0]?.n ?? 0) >= 1
      })
      await watcher.end()
      expect(bDone).toBe(false)
      // Meanwhile a writer of another store-year is not held up, and takes a number of its own year's
      // (its first, as A's was): neither counts the other's writes.
      const c = await client(one)
      await insertSale(c, people.otherStoreId, '2026-03-15T02:00:00Z', 7)
      const revC = await versionIn(c, people.otherStoreId, 2026)
      await c.end()
      expect(revC).toBe(revA)
      // A reader sees neither A's uncommitted N nor anything after it.
      expect((await changes(two, people.owner, `year=2026&after=${before}`)).json()).toMatchObject({
        rev: before,
        changes: [],
      })

      await a.query('commit')
      await bInsert
      // B's number was taken after the lock was its own: the one after A's, whatever C wrote meanwhile.
      const revB = await versionIn(b, people.storeId, 2026)
      expect(revB).toBe(revA + 1)
      const afterA = (await changes(two, people.owner, `year=2026&after=${before}`)).json()
      expect(afterA).toEqual({
        rev: revA,
        changes: [{ op: 'put', createdAt: '2026-03-15T01:00:00.000Z', amount: 1000 }],
        count: 1,
        sum: 1000,
      })
      await b.query('commit')
      const afterB = (await changes(two, people.owner, `year=2026&after=${revA}`)).json()
      expect(afterB).toEqual({
        rev: revB,
        changes: [{ op: 'put', createdAt: '2026-03-15T02:00:00.000Z', amount: 2000 }],
        count: 2,
        sum: 3000,
      })
    } finally {
      await a.end()
      await b.end()
    }
  })

  it('writers of one store-year at once never share a revision, and a reader following the log misses none, whatever another store writes meanwhile', async () => {
    const writers = await Promise.all(Array.from({ length: 6 }, () => client(one)))
    const others = await Promise.all(Array.from({ length: 3 }, () => client(one)))
    try {
      const [first] = writers as [pg.Client]
      await insertSale(first, people.storeId, '2026-03-15T00:00:00Z', 1)
      const start = await versionIn(first, people.storeId, 2026)

      // A reader on the other instance follows the log from `start`, as the app does.
      const followed: number[] = []
      let after = start
      let writing = true
      async function readOnce() {
        const answer = (await changes(two, people.owner, `year=2026&after=${after}`)).json()
        expect(answer.reset).toBeUndefined()
        for (const change of answer.changes) followed.push(change.amount)
        // The checksum of the snapshot read: every record so far, none skipped.
        expect(answer.count).toBe(followed.length + 1)
        after = answer.rev
      }
      const reader = (async () => {
        while (writing) {
          await readOnce()
          await new Promise((resolve) => setTimeout(resolve, 2))
        }
      })()

      const revisions: number[] = []
      const amounts: number[] = []
      for (let round = 0; round < 5; round++) {
        const mine = writers.map(async (connection, index) => {
          const amount = 1000 + round * 10 + index
          amounts.push(amount)
          await connection.query('begin')
          await insertSale(connection, people.storeId, `2026-03-15T0${round}:1${index}:00Z`, amount)
          revisions.push(await versionIn(connection, people.storeId, 2026))
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5))
          await connection.query('commit')
        })
        const theirs = others.map((connection, index) =>
          insertSale(connection, people.otherStoreId, `2026-03-15T0${round}:2${index}:00Z`, 7),
        )
        await Promise.all([...mine, ...theirs])
      }
      writing = false
      await reader
      await readOnce()

      // Thirty writes, thirty revisions of this year's own, one after another: none shared, none lent
      // to the other store's fifteen writes meanwhile.
      expect(revisions.sort((x, y) => x - y)).toEqual(revisions.map((_, index) => start + 1 + index))
      expect(after).toBe(start + 30)
      expect(followed.sort((x, y) => x - y)).toEqual(amounts.sort((x, y) => x - y))
    } finally {
      for (const connection of [...writers, ...others]) await connection.end()
    }
  })
})

describe('pruning the log', () => {
  it('runs on one instance at a time: the others skip while one prunes', async () => {
    const holder = await client(one)
    try {
      await holder.query('begin')
      await holder.query(`select pg_advisory_xact_lock(hashtext('usage_changes_prune'))`)
      expect(await pruneChanges(two.db, new Date())).toBeNull()
      await holder.query('commit')
      expect(await pruneChanges(two.db, new Date())).toBe(0)
    } finally {
      await holder.end()
    }
  })
})

describe('held calls across instances', () => {
  it("are woken by a device's sale taken by the other instance, well within a second", async () => {
    const { key } = await pairedDevice(one, people.storeId, people.owner)
    const { rev } = (await changes(two, people.owner, 'year=2026&after=0')).json()
    const held = changes(two, people.owner, `year=2026&after=${rev}&wait=20`)
    await until(() => two.live.held === 1)
    const sent = Date.now()
    const posted = await postSales(one, key, 'k1', [
      { id: 's1', createdAt: '2026-03-15T02:00:00.000Z', amount: 4000 },
    ])
    expect(posted.statusCode).toBe(200)
    const answer = await held
    expect(Date.now() - sent).toBeLessThan(1_000)
    expect(answer.json()).toMatchObject({
      changes: [{ op: 'put', createdAt: '2026-03-15T02:00:00.000Z', amount: 4000 }],
      count: 1,
      sum: 4000,
    })
  })

  it("a held overview call is woken by a device's sale taken by the other instance (decision 110)", async () => {
    const { key } = await pairedDevice(one, people.storeId, people.owner)
    const overview = (query = '') =>
      two.inject({ method: 'GET', url: `/api/v0/stores/overview${query}`, headers: bearer(people.owner) })
    const before = (await overview()).json()
    const held = overview(`?after=${before.rev}&wait=20`)
    await until(() => two.live.held === 1)
    const sent = Date.now()
    const posted = await postSales(one, key, 'k-overview', [
      { id: 's-overview', createdAt: '2026-03-15T02:00:00.000Z', amount: 4000 },
    ])
    expect(posted.statusCode).toBe(200)
    const answer = (await held).json()
    expect(Date.now() - sent).toBeLessThan(1_000)
    expect(answer.rev).not.toBe(before.rev)
    expect(answer.stores[0].today).toEqual({ sum: 4000, count: 1 })
  })

  it("stream each device's sale taken by the other instance, each within a second (decision 133)", async () => {
    const { key } = await pairedDevice(one, people.storeId, people.owner)
    const gone = new AbortController()
    const address = two.server.listening
      ? `http://127.0.0.1:${(two.server.address() as { port: number }).port}`
      : await two.listen({ port: 0, host: '127.0.0.1' })
    const { rev } = (await changes(two, people.owner, 'year=2026&after=0')).json()
    const stream = await openStream(
      `${address}/api/v0/store/${people.storeId}/usage/changes?year=2026&after=${rev}&wait=25`,
      bearer(people.owner),
      gone.signal,
    )
    const overview = (
      await two.inject({ method: 'GET', url: '/api/v0/stores/overview', headers: bearer(people.owner) })
    ).json()
    const overviewStream = await openStream(
      `${address}/api/v0/stores/overview?after=${overview.rev}&wait=25`,
      bearer(people.owner),
      gone.signal,
    )
    await until(() => two.live.held === 2)
    for (let i = 1; i <= 3; i++) {
      const sent = Date.now()
      const posted = await postSales(one, key, `k-stream-${i}`, [
        { id: `s-stream-${i}`, createdAt: `2026-03-15T02:0${i}:00.000Z`, amount: 1000 * i },
      ])
      expect(posted.statusCode).toBe(200)
      await until(() => stream.events().length === i && overviewStream.events().length === i)
      expect(Date.now() - sent).toBeLessThan(1_000)
    }
    expect(stream.events().at(-1)).toMatchObject({ changes: [{ amount: 3000 }], count: 3, sum: 6000 })
    expect((overviewStream.events().at(-1) as { stores: { today: unknown }[] }).stores[0]?.today).toEqual({
      sum: 6000,
      count: 3,
    })
    expect(stream.state.ended).toBe(false)
    gone.abort()
    await until(() => two.live.held === 0)
  })

  it('end with 401 when the sign-in ends on the other instance', async () => {
    const ownerId = Number(
      (await one.inject({ method: 'GET', url: '/api/v0/user', headers: bearer(people.owner) })).json().user
        .id,
    )
    const signedIn = await one.tokens.start(ownerId)
    const held = changes(two, signedIn.access, 'year=2026&after=0&wait=20')
    await until(() => two.live.held === 1)
    const started = Date.now()
    const out = await one.inject({
      method: 'DELETE',
      url: `/api/v0/user/sign?token=${encodeURIComponent(signedIn.refresh)}`,
    })
    expect(out.statusCode).toBe(204)
    const answer = await held
    expect(answer.statusCode).toBe(401)
    expect(Date.now() - started).toBeLessThan(1_000)
    // The other instance refuses the token at once too (not after its 5-second trust).
    expect((await changes(two, signedIn.access, 'year=2026&after=0')).statusCode).toBe(401)
    expect(two.live.held).toBe(0)
  })

  it('are woken again after the listening connection is killed: it listens again', async () => {
    const pid = await two.live.listenerPid()
    expect(pid).toBeTypeOf('number')
    const listens = two.live.stats.listens
    const admin = await client(one)
    try {
      await admin.query('select pg_terminate_backend($1)', [pid])
    } finally {
      await admin.end()
    }
    await until(() => two.live.stats.listens > listens)
    expect(await two.live.listenerPid()).not.toBe(pid)
    const { rev } = (await changes(two, people.owner, 'year=2026&after=0')).json()
    const held = changes(two, people.owner, `year=2026&after=${rev}&wait=20`)
    await until(() => two.live.held === 1)
    const writer = await client(one)
    const sent = Date.now()
    try {
      await insertSale(writer, people.storeId, '2026-03-15T02:30:00Z', 500)
    } finally {
      await writer.end()
    }
    const answer = await held
    expect(Date.now() - sent).toBeLessThan(1_000)
    expect(answer.json().changes).toEqual([{ op: 'put', createdAt: '2026-03-15T02:30:00.000Z', amount: 500 }])
  })

  it('are woken by the safety poll when a notification is lost', async () => {
    await withAnotherInstance(one, { clock, livePollMs: 300 }, async (three) => {
      // The listener is gone and does not come back (as if it silently stopped hearing).
      await three.live.stopListening()
      const { rev } = (await changes(three, people.owner, 'year=2026&after=0')).json()
      const held = changes(three, people.owner, `year=2026&after=${rev}&wait=20`)
      await until(() => three.live.held === 1)
      const writer = await client(one)
      try {
        await insertSale(writer, people.storeId, '2026-03-15T02:40:00Z', 600)
      } finally {
        await writer.end()
      }
      const answer = await held
      expect(answer.json().changes).toEqual([
        { op: 'put', createdAt: '2026-03-15T02:40:00.000Z', amount: 600 },
      ])
      expect(three.live.stats.polls).toBeGreaterThan(0)
    })
  })
})
