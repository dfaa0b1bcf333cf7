// Bringing the view's cells up to the database from the changes log (usage_changes), in bulk.
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../db/client.ts'
import { applySale, removeSale } from './apply.ts'
import { revisionSlot, type ViewCells } from './cells.ts'
import { readStores } from './read.ts'

interface Behind {
  id: number
  year: number
  rev: number
}

/**
 * Brings the cells up to the database: the store-years whose revision moved since (one query of
 * usage_years) get their logged changes above the revision held (one query for all of them), applied
 * in place; a store whose log does not reach back that far, with a `reset`, or whose last sale was
 * deleted is read again. Every store held, or only `storeIds`. Returns how many changes were applied
 * and stores read again. Not safe to run twice at once (view.ts runs one at a time).
 */
export async function refreshCells(db: Db, cells: ViewCells, storeIds?: number[]) {
  const held = storeIds?.filter((id) => cells.rowOf.has(id))
  if (held?.length === 0) return { applied: 0, reread: 0 }
  const { behind, reread } = await movedYears(db, cells, held)
  const applied = behind.length > 0 ? await applyLogged(db, cells, behind, reread) : 0
  if (reread.size > 0) await readStores(db, cells, [...reread])
  return { applied, reread: reread.size }
}

/** The held store-years whose revision moved: behind (their log reaches back) or to read again. */
async function movedYears(db: Db, cells: ViewCells, held: number[] | undefined) {
  const { year, rowOf, revisions } = cells
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
  const behind: Behind[] = []
  const reread = new Set<number>()
  for (const row of moved) {
    const id = Number(row.store_id)
    const index = rowOf.get(id)
    if (index === undefined) continue
    const revision = revisions[revisionSlot(cells, index, Number(row.year))] as number
    if (Number(row.version) <= revision) continue
    if (revision < Number(row.log_from)) reread.add(id)
    else behind.push({ id, year: Number(row.year), rev: revision })
  }
  return { behind, reread }
}

/** Applies the logged changes above each store-year's revision held; adds to `reread` the stores that need it. */
async function applyLogged(db: Db, cells: ViewCells, behind: Behind[], reread: Set<number>) {
  const { rowOf, revisions } = cells
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
  let applied = 0
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
    if (change.op === 'put') applySale(cells, id, at, amount)
    else if (removeSale(cells, row, at, amount)) reread.add(id)
    const slot = revisionSlot(cells, row, Number(change.year))
    revisions[slot] = Math.max(revisions[slot] as number, Number(change.rev))
    applied++
  }
  return applied
}
