// The server's view of every store at scale (decisions 131–132): per store only what the rules
// read, not whole years of buckets. The app's figures (src/figures/) read a store's hourly sums and
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
import { sql } from 'drizzle-orm'
import { type Buckets, emptyBuckets } from '../../domain/buckets.ts'
import { hourMs, yearOf, yearStart } from '../../domain/calendar.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'

/** The window's length, in hours: 100 days, from the start of the month two months before the load. */
export const windowHours = 100 * 24
/** Stores loaded per grouped query (bounds the rows held at once while loading). */
const loadChunk = 250

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

/**
 * Per-hour cells of all stores: a compact typed array (a sum in 4 bytes, a count in 2: 144 MB for 10,000
 * stores' windows) and, for the few cells whose value leaves the array type's range (2^31 won, 2^16
 * sales in a store-hour: nothing in the contract bounds either), the exact value in a map beside it.
 * So a cell never wraps; it is as exact as the app's own buckets (JavaScript numbers).
 */
export function hourCells(size: number, Kind: Int32ArrayConstructor | Uint16ArrayConstructor) {
  const array = new Kind(size)
  const [min, max] = Kind === Int32Array ? [-(2 ** 31), 2 ** 31 - 1] : [0, 2 ** 16 - 1]
  const wide = new Map<number, number>()
  const get = (index: number) =>
    wide.size > 0 ? (wide.get(index) ?? (array[index] as number)) : (array[index] as number)
  function set(index: number, value: number) {
    if (value >= min && value <= max) {
      array[index] = value
      if (wide.size > 0) wide.delete(index)
    } else {
      array[index] = 0
      wide.set(index, value)
    }
  }
  return {
    get,
    set,
    add: (index: number, delta: number) => set(index, get(index) + delta),
    /** Zeroes the cells [from, to). */
    clear(from: number, to: number) {
      array.fill(0, from, to)
      for (const index of wide.keys()) if (index >= from && index < to) wide.delete(index)
    },
    bytes: () => array.byteLength + wide.size * 16,
  }
}

/** The window's origin for a load at `now`: 00:00 UTC of the first day of the month two months before. */
export function windowOrigin(now: number) {
  const date = new Date(now)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 2, 1)
}

/** Loads the view of the given stores (all of `stores` when not given) at `now`. */
export async function loadStoreView(db: Db, now: number, storeIds?: number[]): Promise<StoreView> {
  const origin = windowOrigin(now)
  const end = origin + windowHours * hourMs
  const ids =
    storeIds ??
    (await queryRows<{ id: number }>(db, sql`select id from stores order by id`)).map((row) => Number(row.id))
  const rowOf = new Map<number, number>()
  ids.forEach((id, index) => {
    rowOf.set(id, index)
  })
  const sums = hourCells(ids.length * windowHours, Int32Array)
  const counts = hourCells(ids.length * windowHours, Uint16Array)
  const lastSale = new Float64Array(ids.length).fill(Number.NaN)
  const from = new Date(origin).toISOString()
  const to = new Date(end).toISOString()
  const year = yearOf(now)
  /** The revision of each store's two years (now's and the one before) the arrays hold. */
  const revisions = new Float64Array(ids.length * 2)

  /** Reads the given stores' hours, last sale and revisions in one snapshot (so no change is counted twice). */
  async function read(chunk: number[]) {
    // One array parameter, never a list of parameters (docs/upstream/pglite-row-constructor-hang.md).
    const list = sql`${intArray(chunk)}::int[]`
    await db.transaction(
      async (tx) => {
        const versions = await queryRows<{ store_id: number; year: number; version: string | number }>(
          tx,
          sql`select store_id, year, version from usage_years
              where store_id = any(${list}) and year in (${year - 1}, ${year})`,
        )
        const hours = await queryRows<{
          store_id: number
          h: number
          s: string | number
          c: string | number
        }>(
          tx,
          sql`select store_id, floor((date_part('epoch', created_at) - ${origin / 1000}) / 3600)::int as h,
                sum(amount) as s, count(*) filter (where amount > 0) as c
              from usages where store_id = any(${list}) and created_at >= ${from}::timestamptz and created_at < ${to}::timestamptz
              group by 1, 2`,
        )
        // The latest sale of each store (by createdAt, as the buckets' lastSaleAt), up to the end of now's year.
        const lasts = await queryRows<{ id: number; at: Date | string | null }>(
          tx,
          sql`select s.id, (select max(created_at) from usages u where u.store_id = s.id and u.amount > 0
                and u.created_at < ${new Date(yearStart(year + 1)).toISOString()}::timestamptz) as at
              from unnest(${list}) as s(id)`,
        )
        for (const id of chunk) {
          const row = rowOf.get(id) as number
          sums.clear(row * windowHours, (row + 1) * windowHours)
          counts.clear(row * windowHours, (row + 1) * windowHours)
          revisions[row * 2] = 0
          revisions[row * 2 + 1] = 0
        }
        for (const row of versions)
          revisions[(rowOf.get(Number(row.store_id)) as number) * 2 + (Number(row.year) === year ? 0 : 1)] =
            Number(row.version)
        for (const row of hours) {
          const index = (rowOf.get(Number(row.store_id)) as number) * windowHours + Number(row.h)
          sums.set(index, Number(row.s))
          counts.set(index, Number(row.c))
        }
        for (const row of lasts)
          lastSale[rowOf.get(Number(row.id)) as number] =
            row.at === null ? Number.NaN : new Date(row.at).getTime()
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    )
  }
  for (let first = 0; first < ids.length; first += loadChunk) await read(ids.slice(first, first + loadChunk))

  // Two scratch years, and what was written into them for the store before.
  const scratch = new Map<number, Buckets>()
  const written: { buckets: Buckets; from: number; to: number }[] = []
  const scratchOf = (year: number) => {
    let buckets = scratch.get(year)
    if (!buckets) {
      if (scratch.size >= 4) scratch.clear()
      buckets = emptyBuckets(year)
      scratch.set(year, buckets)
    }
    return buckets
  }

  function fill(buckets: Buckets, row: number, lastSaleAt: number | null) {
    const start = yearStart(buckets.year)
    // The window's hours inside this year, as indexes of the year's hourly arrays.
    const first = Math.max(0, Math.round((origin - start) / hourMs))
    const last = Math.min(buckets.hourSums.length, Math.round((end - start) / hourMs))
    const shift = Math.round((start - origin) / hourMs)
    const base = row * windowHours
    for (let hour = first; hour < last; hour++) {
      buckets.hourSums[hour] = sums.get(base + hour + shift)
      buckets.hourCounts[hour] = counts.get(base + hour + shift)
    }
    buckets.lastSaleAt = lastSaleAt !== null && yearOf(lastSaleAt) === buckets.year ? lastSaleAt : null
    if (last > first) written.push({ buckets, from: first, to: last })
  }

  function apply(storeId: number, createdAt: number, amount: number) {
    const row = rowOf.get(storeId)
    if (row === undefined) return false
    if (createdAt >= origin && createdAt < end) {
      const index = row * windowHours + Math.floor((createdAt - origin) / hourMs)
      sums.add(index, amount)
      if (amount > 0) counts.add(index, 1)
    }
    const latest = lastSale[row] as number
    // The last sale up to the end of the view's year, as loaded (a later one is in neither year's buckets).
    if (amount > 0 && createdAt < yearStart(year + 1) && !(latest >= createdAt)) lastSale[row] = createdAt
    return true
  }

  /**
   * Brings the view up to the database: the store-years whose revision moved since (one query of
   * usage_years) get their logged changes above the revision held (one query for all of them), applied
   * in place; a store whose log does not reach back that far, with a `reset`, or whose last sale was
   * deleted is read again. Returns how many changes were applied and stores read again.
   */
  async function refreshNow(storeIds?: number[]) {
    const held = storeIds?.filter((id) => rowOf.has(id))
    if (held?.length === 0) return { applied: 0, reread: 0 }
    const only = held ? sql`and store_id = any(${`{${held.join(',')}}`}::int[])` : sql``
    const moved = await queryRows<{
      store_id: number
      year: number
      version: string | number
      log_from: string | number
    }>(
      db,
      sql`select store_id, year, version, log_from from usage_years where year in (${year - 1}, ${year}) ${only}`,
    )
    const behind: { id: number; year: number; rev: number }[] = []
    const reread = new Set<number>()
    for (const row of moved) {
      const id = Number(row.store_id)
      const index = rowOf.get(id)
      if (index === undefined) continue
      const slot = index * 2 + (Number(row.year) === year ? 0 : 1)
      const held = revisions[slot] as number
      if (Number(row.version) <= held) continue
      if (held < Number(row.log_from)) reread.add(id)
      else behind.push({ id, year: Number(row.year), rev: held })
    }
    let applied = 0
    if (behind.length > 0) {
      const changes = await queryRows<{
        store_id: number
        year: number
        rev: string | number
        op: 'put' | 'del' | 'reset'
        created_at: Date | string | null
        amount: number | null
      }>(
        db,
        sql`select c.store_id, c.year, c.rev, c.op, c.created_at, c.amount
            from unnest(${`{${behind.map((b) => b.id).join(',')}}`}::int[], ${`{${behind.map((b) => b.year).join(',')}}`}::int[],
              ${`{${behind.map((b) => b.rev).join(',')}}`}::bigint[]) as k(store_id, year, rev)
            join usage_changes c on c.store_id = k.store_id and c.year = k.year and c.rev > k.rev
            order by c.rev, c.id`,
      )
      for (const change of changes) {
        const id = Number(change.store_id)
        if (reread.has(id)) continue
        const row = rowOf.get(id) as number
        if (change.op === 'reset' || change.created_at === null || change.amount === null) {
          reread.add(id)
          continue
        }
        const at = new Date(change.created_at).getTime()
        const amount = Number(change.amount)
        if (change.op === 'put') apply(id, at, amount)
        else {
          if (at >= origin && at < end) {
            const index = row * windowHours + Math.floor((at - origin) / hourMs)
            sums.add(index, -amount)
            if (amount > 0) counts.add(index, -1)
          }
          if (amount > 0 && lastSale[row] === at) reread.add(id)
        }
        const slot = row * 2 + (Number(change.year) === year ? 0 : 1)
        revisions[slot] = Math.max(revisions[slot] as number, Number(change.rev))
        applied++
      }
    }
    if (reread.size > 0) await read([...reread])
    return { applied, reread: reread.size }
  }
  let refreshing: Promise<unknown> = Promise.resolve()
  function refresh(storeIds?: number[]) {
    const next = refreshing.then(() => refreshNow(storeIds))
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
      return revisions[row * 2 + (at === year ? 0 : 1)] as number
    },
    covers: (at) => at >= origin && windowOrigin(at) === origin,
    apply,
    refresh,
    bucketsOf(storeId, at) {
      for (const { buckets, from, to } of written.splice(0)) {
        buckets.hourSums.fill(0, from, to)
        buckets.hourCounts.fill(0, from, to)
        buckets.lastSaleAt = null
      }
      const year = yearOf(at)
      const current = scratchOf(year)
      const previous = scratchOf(year - 1)
      const row = rowOf.get(storeId)
      if (row === undefined) return [current, previous]
      const latest = lastSale[row] as number
      const lastSaleAt = Number.isNaN(latest) ? null : latest
      fill(current, row, lastSaleAt)
      fill(previous, row, lastSaleAt)
      return [current, previous]
    },
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
