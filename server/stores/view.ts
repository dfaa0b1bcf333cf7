// The server's view of every store at scale (decisions 131–132): per store only what the rules
// read, not whole years of buckets. The app's figures (domain/) read a store's hourly sums and
// counts, and its last sale; every rule reads a bounded window of hours before now (the quiet rule 8
// weeks, the usual 4 weeks, the month against the month before, the morning summary's yesterday and
// its month before). So the view keeps, for every store, the hours of one window shared by all stores
// (from the start of the month two months before the load, 100 days long) in two arrays of cells of all
// stores together, and the last sale; it is loaded once in bulk with set-based SQL (a few grouped
// queries, not one per store) and a sale updates it in place (`apply`).
//
// The rules still run the app's very code: `bucketsOf` copies a store's window into one of two scratch
// Buckets (this year's, last year's) that this view reuses from store to store, zeroing what it wrote
// for the store before. The figures equal those of the full years' buckets as long as `now` lies in
// the window (tests/server/stores/view.test.ts); `covers(now)` says when a reload is due.
//
// This file assembles the view and keeps an instance's one view; each job has its file beside it: the
// window and its cells (cells.ts), loading them from the database (read.ts), applying a change in
// memory (apply.ts), catching up from the changes log (refresh.ts), reading a store's hours out as
// Buckets (buckets.ts).
import { sql } from 'drizzle-orm'
import type { Buckets } from '../../domain/buckets.ts'
import { type Db, queryRows } from '../db/client.ts'
import { applySale } from './apply.ts'
import { scratchBuckets } from './buckets.ts'
import { revisionSlot, viewCells, windowOrigin } from './cells.ts'
import { readAll } from './read.ts'
import { refreshCells } from './refresh.ts'

export interface StoreView {
  /** The window's first instant (epoch ms, a UTC month start). */
  origin: number
  /** Stores held. */
  size: number
  /** Whether a store is held (a store added since the load is not). */
  has(storeId: number): boolean
  /** Whether the window holds every hour the rules read at `now`. */
  covers(now: number): boolean
  /** The revision of a store-year the view holds (usage_years.version; 0: none yet, or not held). */
  revisionOf(storeId: number, year: number): number
  /** A sale (or refund, amount ≤ 0) recorded at `createdAt` for a store held; false when not held. */
  apply(storeId: number, createdAt: number, amount: number): boolean
  /**
   * Brings the view up to the database from the changes log (usage_changes), in bulk: every store
   * held, or only `storeIds` (the stores overview's, decision 138). Refreshes run one at a time, so
   * that two never apply the same change twice.
   */
  refresh(storeIds?: number[]): Promise<{ applied: number; reread: number }>
  /** The store's buckets of `now`'s year and the year before, as the figures read them (scratch: valid until the next call). */
  bucketsOf(storeId: number, now: number): [Buckets, Buckets]
  /** Bytes held by the typed arrays. */
  bytes(): number
}

/** Loads the view of the given stores (all of `stores` when not given) at `now`. */
export async function loadStoreView(db: Db, now: number, storeIds?: number[]): Promise<StoreView> {
  const ids =
    storeIds ??
    (await queryRows<{ id: number }>(db, sql`select id from stores order by id`)).map((row) => Number(row.id))
  const cells = viewCells(now, ids)
  await readAll(db, cells)
  const { origin, year, rowOf, revisions, sums, counts, lastSale } = cells

  let refreshing: Promise<unknown> = Promise.resolve()
  function refresh(storeIds?: number[]) {
    const next = refreshing.then(() => refreshCells(db, cells, storeIds))
    refreshing = next.catch(() => {})
    return next
  }

  return {
    origin,
    size: ids.length,
    has: (storeId) => rowOf.has(storeId),
    revisionOf(storeId, at) {
      const row = rowOf.get(storeId)
      if (row === undefined || (at !== year && at !== year - 1)) return 0
      return revisions[revisionSlot(cells, row, at)] as number
    },
    covers: (at) => at >= origin && windowOrigin(at) === origin,
    apply: (storeId, createdAt, amount) => applySale(cells, storeId, createdAt, amount),
    refresh,
    bucketsOf: scratchBuckets(cells),
    bytes: () => sums.bytes() + counts.bytes() + lastSale.byteLength,
  }
}

/**
 * The one view of every store an instance keeps (decisions 131, 138): the alert rules load it and bring
 * it up to date each minute (`upToDate`); the stores overview answers from it (`current`) for the
 * stores it holds, after refreshing just those from the changes log, and from the stores' years
 * otherwise (none loaded yet, a store added since the load, a new month until the next minute's load).
 */
export function storeViews(db: Db) {
  let view: StoreView | null = null
  return {
    /** The view, when one is loaded and covers `now`. */
    current: (now: number) => (view?.covers(now) ? view : null),
    /** The view at `now` holding every one of `storeIds`: loaded in bulk when there is none, when it does not cover now or lacks a store; else refreshed. */
    async upToDate(now: number, storeIds: number[]): Promise<StoreView> {
      const held = view
      if (!held?.covers(now) || storeIds.some((id) => !held.has(id))) view = await loadStoreView(db, now)
      else await held.refresh()
      return view as StoreView
    },
    /** Drops the view (the tests' emptied database: store ids start again). */
    forget() {
      view = null
    },
  }
}

export type StoreViews = ReturnType<typeof storeViews>
