// Loading the view's cells from the database: a chunk of stores' hours in the window, last sale and
// revisions, read with set-based SQL in one snapshot (a few grouped queries, not one per store).
import { sql } from 'drizzle-orm'
import { yearStart } from '../../domain/calendar.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'
import { revisionSlot, type ViewCells, windowHours } from './cells.ts'

/** Stores loaded per grouped query (bounds the rows held at once while loading). */
export const loadChunk = 250

/** Reads every store of the cells, `loadChunk` stores a query. */
export async function readAll(db: Db, cells: ViewCells) {
  for (let first = 0; first < cells.ids.length; first += loadChunk)
    await readStores(db, cells, cells.ids.slice(first, first + loadChunk))
}

/** Reads the given stores' hours, last sale and revisions in one snapshot (so no change is counted twice). */
export async function readStores(db: Db, cells: ViewCells, chunk: number[]) {
  const { origin, end, year, rowOf, sums, counts, lastSale, revisions } = cells
  const from = new Date(origin).toISOString()
  const to = new Date(end).toISOString()
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
        revisions[revisionSlot(cells, rowOf.get(Number(row.store_id)) as number, Number(row.year))] = Number(
          row.version,
        )
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
