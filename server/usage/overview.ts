// The server's view of every store (GET /api/v0/stores/overview, docs/product.md decisions 97–99):
// for each of a user's stores, what the app's stores overview shows, computed with the app's very code.
// The buckets are made by the app's own bucketing (domain/bucketing.ts) from the compact
// encoding of the records, the same bytes the app receives, and the figures by the app's pure rules
// (src/figures/): today against the usual, the month against the month before, the last sale, the
// quiet rule. Biome lets server/ import exactly those files (docs/architecture.md).
//
// A store the instance's view of every store holds (server/stores/view.ts, which the alert rules load
// and keep current; decision 138) is answered from the view's hours, brought up to the changes log
// first (the caller's stores only), with the same two functions of domain/store-overview.ts.
// Any other store (no view loaded yet, a store added since, a new month before the next load) from
// its years' buckets, kept in memory per store-year with the year's revision (usage_years.version): an
// answer rebuilds only the store-years whose revision moved since, so a sale costs one year's scan of
// its store, and an unchanged store costs nothing but its row in one query.
import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import type { StoreClock, StoreOverview, StoresOverviewAnswer } from '../../contract/api.ts'
import { bucketCompact } from '../../domain/bucketing.ts'
import { type Buckets, emptyBuckets } from '../../domain/buckets.ts'
import { yearOf } from '../../domain/calendar.ts'
import { offlineAfterMs } from '../../domain/devices.ts'
import { figuresAt, overviewClock, type StoreMade } from '../../domain/overview-clock.ts'
import { rowFigures, withoutSums } from '../../domain/store-overview.ts'
import { modelOf } from '../alerts/quiet.ts'
import { type Db, queryRows } from '../db/client.ts'
import { seesMoneySql, storesOfSql } from '../store-access.ts'
import type { StoreViews } from '../stores/view.ts'
import { usageCompact } from './scan.ts'

/** A 48-bit token of a value's JSON (decision 110). */
const tokenOf = (value: unknown) =>
  createHash('sha256').update(JSON.stringify(value)).digest().readUIntBE(0, 6)

/** A store's row at an instant, and what it is made of: the figures only a sale moves, its devices and its clock. */
interface Row {
  store: StoreOverview
  made: StoreMade & { devices: StoreOverview['devices']; clock: StoreClock }
}

/**
 * A row without a won amount (docs/product.md §15): the figures' sums left out, and in its clock every
 * hour's sum 0, so figuresAt, here and in the app, gives its counts only.
 */
function countsOnly({ store, made }: Row): Row {
  const count = ({ count }: { count: number }) => ({ count })
  const noSums = <T extends { sum: number; sums: number[] } | null>(hours: T): T =>
    hours && { ...hours, sum: 0, sums: hours.sums.map(() => 0) }
  const { usual, previous } = made.clock
  return {
    store: { ...withoutSums(store), id: store.id, devices: store.devices },
    made: {
      ...made,
      today: count(made.today),
      month: count(made.month),
      clock: { ...made.clock, usual: noSums(usual), previous: noSums(previous) },
    },
  }
}

/**
 * A store's row from its buckets at `now` (decision 237): what it is made of and its clock, and its
 * figures from them, as the app computes them from the same (`figuresAt`).
 */
function rowOf(
  id: number,
  current: Buckets,
  previous: Buckets | undefined,
  now: Date,
  devices: StoreOverview['devices'],
): Row {
  const made = overviewClock(current, previous, now, modelOf(id, current, previous, now.getTime(), false))
  if (!made) throw new Error('store figures: buckets of another year than now')
  return {
    store: { id, ...figuresAt(made.made, made.clock, now.getTime()), devices },
    made: { ...made.made, devices, clock: made.clock },
  }
}

/** What the rows are made of, each store's parts as keys (what a stream with `clock=1` compares), and its token. */
export interface OverviewMade {
  token: number
  stores: { id: number; parts: Record<string, string>; made: Row['made'] }[]
}

function madeOf(rows: Row[]): OverviewMade {
  const stores = rows.map(({ store, made }) => ({
    id: store.id,
    parts: {
      today: JSON.stringify(made.today),
      month: JSON.stringify(made.month),
      lastSaleAt: JSON.stringify(made.lastSaleAt),
      devices: JSON.stringify(made.devices),
      clock: JSON.stringify({ ...made.clock, quiet: null }),
      quiet: JSON.stringify(made.clock.quiet),
    },
    made,
  }))
  return { token: tokenOf(stores.map(({ id, parts }) => [id, parts])), stores }
}

interface Kept {
  revision: number
  buckets: Buckets
}

/**
 * The overview of a user's stores, with the buckets of at most `maxYears` store-years kept (least
 * recently used dropped), building those of `parallel` stores at a time.
 */
export function storesOverview(
  db: Db,
  {
    maxYears = 256,
    parallel = 2,
    views,
  }: {
    maxYears?: number
    parallel?: number
    /** The instance's view of every store (the alert rules'), answered from where it holds a store. */
    views?: StoreViews
  } = {},
) {
  const kept = new LRUCache<string, Kept>({ max: maxYears })
  const building = new Map<string, Promise<Buckets>>()
  const empties = new Map<number, Buckets>()
  /** Store-years bucketed from their records (for the tests: a sale rebuilds one, nothing else does), and stores answered from the view. */
  const stats = { builds: 0, fromView: 0 }

  /** The buckets of a store's year at `revision` (0: no record yet, nothing to read). */
  async function bucketsOf(storeId: number, year: number, revision: number): Promise<Buckets> {
    const key = `${storeId}:${year}`
    const cached = kept.get(key)
    if (cached?.revision === revision) return cached.buckets
    if (revision === 0) {
      // One empty year shared (the figures only read buckets): the alert rules ask every minute.
      let empty = empties.get(year)
      if (!empty) {
        empty = emptyBuckets(year)
        empties.set(year, empty)
      }
      return empty
    }
    const buildKey = `${key}:${revision}`
    let pending = building.get(buildKey)
    if (!pending) {
      stats.builds++
      // Read after the revision: the buckets hold at least what it says; a newer record only means
      // the next answer rebuilds them.
      pending = usageCompact(db, storeId, year)
        .then((bytes) => bucketCompact(bytes, year))
        .finally(() => building.delete(buildKey))
      building.set(buildKey, pending)
    }
    const buckets = await pending
    if ((kept.get(key)?.revision ?? -1) < revision) kept.set(key, { revision, buckets })
    return buckets
  }

  /**
   * The overview, and the store-years it was built from with their revisions (what a held call
   * follows). `rev` is a 48-bit token of the figures (decision 110): it moves when any figure does,
   * whether a sale, a device or the clock moved it.
   */
  async function read(
    userId: number,
    now: Date,
  ): Promise<{
    answer: StoresOverviewAnswer
    years: { storeId: number; year: number; revision: number }[]
    /** Each store's shown figures (the answer's order) as a key: the same key, the same row on screen. */
    shown: string[]
    /** What the rows are made of (decision 237). */
    made: OverviewMade
  }> {
    const year = yearOf(now.getTime())
    const seenSince = new Date(now.getTime() - offlineAfterMs).toISOString()
    // The user's stores (the membership rule of every store call), their two years' revisions and
    // their devices, in one query.
    const rows = await queryRows<{
      id: number
      revision: string | number
      previous_revision: string | number
      total: string | number
      offline: string | number
      sees_money: boolean
    }>(
      db,
      sql`select m.store_id as id,
            coalesce(cy.version, 0) as revision,
            coalesce(py.version, 0) as previous_revision,
            (select count(*) from devices d
              where d.store_id = m.store_id and d.paired_at is not null and d.revoked_at is null) as total,
            (select count(*) from devices d
              where d.store_id = m.store_id and d.paired_at is not null and d.revoked_at is null
                and (d.last_seen_at is null or d.last_seen_at < ${seenSince}::timestamptz)) as offline,
            ${seesMoneySql(userId, sql`m.store_id`)} as sees_money
          from ${storesOfSql(userId)} m
          left join usage_years cy on cy.store_id = m.store_id and cy.year = ${year}
          left join usage_years py on py.store_id = m.store_id and py.year = ${year - 1}
          order by m.store_id`,
    )
    const years = rows.flatMap((row) => [
      { storeId: Number(row.id), year, revision: Number(row.revision) },
      { storeId: Number(row.id), year: year - 1, revision: Number(row.previous_revision) },
    ])
    const devicesOf = (row: (typeof rows)[number]) => ({
      total: Number(row.total),
      offline: Number(row.offline),
    })
    // The stores the view holds: brought up to the changes log when it holds an older revision than
    // those read above (so the figures hold at least what they say), then read from it, each at once
    // (its buckets are scratch).
    const view = views?.current(now.getTime())
    const fromView = new Map<number, Row>()
    const held = view ? rows.filter((row) => view.has(Number(row.id))) : []
    if (view && held.length > 0) {
      const behind = held.filter(
        (row) =>
          view.revisionOf(Number(row.id), year) < Number(row.revision) ||
          view.revisionOf(Number(row.id), year - 1) < Number(row.previous_revision),
      )
      if (behind.length > 0) await view.refresh(behind.map((row) => Number(row.id)))
      for (const row of rows) {
        const id = Number(row.id)
        if (!view.has(id)) continue
        const [current, previous] = view.bucketsOf(id, now.getTime())
        fromView.set(id, rowOf(id, current, previous, now, devicesOf(row)))
      }
      stats.fromView += fromView.size
    }
    // The others from their years, a few at a time: the database scans one while this process buckets another.
    const others = rows.filter((row) => !fromView.has(Number(row.id)))
    const fromYears = new Map<number, Row>()
    for (let first = 0; first < others.length; first += parallel) {
      await Promise.all(
        others.slice(first, first + parallel).map(async (row) => {
          const id = Number(row.id)
          const [current, previous] = await Promise.all([
            bucketsOf(id, year, Number(row.revision)),
            bucketsOf(id, year - 1, Number(row.previous_revision)),
          ])
          fromYears.set(id, rowOf(id, current, previous, now, devicesOf(row)))
        }),
      )
    }
    // A store whose won amounts the owner hides from the caller: its counts only, in its row and in what
    // the row is made of (docs/product.md §15).
    const made = rows.map((row) => {
      const made = (fromView.get(Number(row.id)) ?? fromYears.get(Number(row.id))) as Row
      return row.sees_money === true ? made : countsOnly(made)
    })
    const stores = made.map(({ store }) => store)
    // The token of what the screen shows, not of the raw figures: the usual and the month before are
    // prorated to the millisecond, so a token of those would move at every read and a held call would
    // never be held. The changes in whole percents (as the rows show them), the quiet hours, the rest.
    const percent = (ratio: number | null) => (ratio === null ? null : (ratio * 100).toFixed(0))
    const shown = stores.map((store) => {
      const { today, monthSoFar, quiet } = rowFigures(store, now, true)
      return [
        store.id,
        today.sum,
        today.count,
        percent(today.change),
        today.lastSaleAt,
        monthSoFar.sum ?? monthSoFar.count,
        percent(monthSoFar.change),
        quiet && [quiet.since, quiet.quietHours, quiet.expectedSales],
        store.devices,
      ]
    })
    return {
      answer: { at: now.toISOString(), rev: tokenOf(shown), stores },
      years,
      shown: shown.map((row) => JSON.stringify(row)),
      made: madeOf(made),
    }
  }

  async function overview(userId: number, now: Date): Promise<StoresOverviewAnswer> {
    return (await read(userId, now)).answer
  }

  return { overview, read, bucketsOf, stats }
}

export type StoresOverview = ReturnType<typeof storesOverview>
