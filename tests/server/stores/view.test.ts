// The server's view of every store at scale (server/stores/view.ts, decisions 131–132): the figures the
// rules and the overview compute from it equal those from the store's full years of buckets (the
// overview's bucketsOf, bucketed by the app's own code from every record), for random records and
// random instants in its window, across a year's change; a sale applied to it moves it as re-bucketing
// the records does; one store's scratch buckets leave nothing behind for the next.
import { sql } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { yearOf } from '../../../domain/calendar.ts'
import { storeFigures } from '../../../domain/store-overview.ts'
import { seededRandom } from '../../../scripts/seeded-random.ts'
import { summaryFigures } from '../../../server/alerts/morning-summary.ts'
import { addStore } from '../../../server/db/accounts.ts'
import { usages } from '../../../server/db/schema.ts'
import { windowOrigin } from '../../../server/stores/cells.ts'
import { loadStoreView } from '../../../server/stores/view.ts'
import { storesOverview } from '../../../server/usage/overview.ts'
import { sharedTestApp, testClock } from '../test-app.ts'

const clock = testClock('2026-01-20T05:00:00.000Z')
const current = sharedTestApp({ clock })
const hour = 3_600_000
const day = 24 * hour

const generator = seededRandom

/** Stores with random records: a busy one, a sparse one, one stopped days ago, one with refunds, one empty. */
async function randomStores(seed: number, loadAt: number) {
  const random = generator(seed)
  const db = current.app.db
  const ids: number[] = []
  const rates = [10, 1.5, 6, 4, 0]
  for (const [index, rate] of rates.entries()) {
    const id = await addStore(db, { name: `매장${index}` })
    ids.push(id)
    if (rate === 0) continue
    const rows: { storeId: number; createdAt: Date; amount: number }[] = []
    // From well before the window (last year's autumn) to a few days after the load.
    const stop = index === 2 ? loadAt - 3 * day : loadAt + 5 * day
    for (let at = loadAt - 130 * day; at < stop; ) {
      at += Math.max(60_000, Math.round((-Math.log(1 - random()) / rate) * hour))
      const h = new Date(at).getUTCHours()
      if (h > 12 && random() < 0.8) continue
      const amount = index === 3 && random() < 0.1 ? -2000 : 1000 + Math.floor(random() * 5) * 500
      rows.push({ storeId: id, createdAt: new Date(at), amount })
    }
    for (let first = 0; first < rows.length; first += 2_000)
      await db.insert(usages).values(rows.slice(first, first + 2_000))
  }
  return ids
}

async function fullFigures(storeId: number, now: Date) {
  const overview = storesOverview(current.app.db, { maxYears: 4 })
  const versions = (year: number) => 1 + year // any non-zero version: the test's own cache, fresh each call
  const year = yearOf(now.getTime())
  const [buckets, previous] = await Promise.all([
    overview.bucketsOf(storeId, year, versions(year)),
    overview.bucketsOf(storeId, year - 1, versions(year - 1)),
  ])
  return {
    figures: storeFigures(buckets, previous, now),
    yesterday: summaryFigures(buckets, previous, Math.floor(now.getTime() / day) * day - day),
  }
}

it('gives the figures of the full years, at random instants of its window, across the new year', async () => {
  const loadAt = clock.now().getTime()
  const ids = await randomStores(24, loadAt)
  const view = await loadStoreView(current.app.db, loadAt)
  expect(view.origin).toBe(windowOrigin(loadAt))
  expect(view.origin).toBe(Date.parse('2025-11-01T00:00:00Z'))
  const random = generator(7)
  // Instants the window covers: from the load up to the end of its month (a reload is due after).
  const instants = [loadAt, Date.parse('2026-01-01T00:30:00Z'), Date.parse('2026-01-31T23:59:00Z')]
  for (let i = 0; i < 5; i++) instants.push(loadAt - 10 * day + Math.floor(random() * 21 * day))
  let quiet = 0
  for (const at of instants) {
    if (!view.covers(at)) continue
    const now = new Date(at)
    for (const id of ids) {
      const expected = await fullFigures(id, now)
      const [buckets, previous] = view.bucketsOf(id, at)
      const figures = storeFigures(buckets, previous, now)
      if (figures?.quiet) quiet++
      expect({ store: id, at: now.toISOString(), figures }).toEqual({
        store: id,
        at: now.toISOString(),
        figures: expected.figures,
      })
      expect(summaryFigures(buckets, previous, Math.floor(at / day) * day - day)).toEqual(expected.yesterday)
    }
  }
  expect(quiet).toBeGreaterThan(0) // the stopped store is quiet at some instants: the rule was reached
  expect(view.covers(Date.parse('2026-02-01T00:00:00Z'))).toBe(false)
})

it('a sale applied moves the view as re-bucketing the records does', async () => {
  const loadAt = clock.now().getTime()
  const [id] = await randomStores(5, loadAt)
  if (id === undefined) throw new Error('no store')
  const view = await loadStoreView(current.app.db, loadAt)
  for (const [offset, amount] of [
    [-30 * 60_000, 4000],
    [-3 * day, -1500],
    [-40 * day, 2500],
    // A sale dated next year: in neither of the two years' buckets, so not the last sale of this one.
    [Date.parse('2027-01-02T03:00:00Z') - loadAt, 1800],
  ] as const) {
    const at = loadAt + offset
    await current.app.db.insert(usages).values({ storeId: id, createdAt: new Date(at), amount })
    expect(view.apply(id, at, amount)).toBe(true)
  }
  const now = new Date(loadAt)
  const [buckets, previous] = view.bucketsOf(id, loadAt)
  expect(storeFigures(buckets, previous, now)).toEqual((await fullFigures(id, now)).figures)
  expect(view.apply(999_999, loadAt, 1000)).toBe(false)
})

it('refresh() brings it up to the database from the changes log: puts, deletes, a reset', async () => {
  const loadAt = clock.now().getTime()
  const ids = await randomStores(11, loadAt)
  const [busy, sparse, stopped] = ids as [number, number, number]
  const view = await loadStoreView(current.app.db, loadAt)
  const db = current.app.db
  // Puts (one today after the stopped store's gap), a deleted sale (the busy store's latest), and a
  // statement of more than 1,000 records, which the log keeps as one reset.
  await db.insert(usages).values([
    { storeId: stopped, createdAt: new Date(loadAt - 20 * 60_000), amount: 5000 },
    { storeId: sparse, createdAt: new Date(loadAt - 2 * day), amount: -700 },
  ])
  await db.execute(
    sql`delete from usages where id = (select id from usages where store_id = ${busy} and amount > 0 and created_at <= ${new Date(loadAt).toISOString()}::timestamptz order by created_at desc limit 1)`,
  )
  await db.execute(
    sql`insert into usages (store_id, created_at, amount) select ${sparse}, t, 1000 from generate_series(${new Date(loadAt - 30 * day).toISOString()}::timestamptz, ${new Date(loadAt - 20 * day).toISOString()}::timestamptz, interval '10 minutes') t`,
  )
  const refreshed = await view.refresh()
  expect(refreshed.reread).toBeGreaterThanOrEqual(1) // the reset (and the deleted latest sale)
  expect(refreshed.applied).toBeGreaterThanOrEqual(1)
  for (const at of [loadAt, loadAt + 30 * 60_000]) {
    const now = new Date(at)
    for (const id of ids) {
      const [buckets, previous] = view.bucketsOf(id, at)
      expect({ id, figures: storeFigures(buckets, previous, now) }).toEqual({
        id,
        figures: (await fullFigures(id, now)).figures,
      })
    }
  }
  expect(await view.refresh()).toEqual({ applied: 0, reread: 0 })
})

it('refreshes one at a time: two at once (the rules and an overview) apply a change once', async () => {
  const loadAt = clock.now().getTime()
  const ids = await randomStores(3, loadAt)
  const [busy, sparse] = ids as [number, number]
  const view = await loadStoreView(current.app.db, loadAt)
  await current.app.db.insert(usages).values([
    { storeId: busy, createdAt: new Date(loadAt - 10 * 60_000), amount: 6000 },
    { storeId: sparse, createdAt: new Date(loadAt - 3 * hour), amount: 2500 },
  ])
  const [all, some] = await Promise.all([view.refresh(), view.refresh([busy, 999_999])])
  expect(all.applied + some.applied).toBe(2)
  const now = new Date(loadAt)
  for (const id of ids) {
    const [buckets, previous] = view.bucketsOf(id, loadAt)
    expect({ id, figures: storeFigures(buckets, previous, now) }).toEqual({
      id,
      figures: (await fullFigures(id, now)).figures,
    })
  }
})
