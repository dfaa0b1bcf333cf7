// Applying one change to the view's cells in memory: a sale (or refund) added, or a logged one removed.
import { hourMs, yearStart } from '../../domain/calendar.ts'
import type { ViewCells } from './cells.ts'
import { windowHours } from './cells.ts'

/** A sale (or refund, amount ≤ 0) recorded at `createdAt` for a store held; false when not held. */
export function applySale(cells: ViewCells, storeId: number, createdAt: number, amount: number) {
  const { origin, end, year, rowOf, sums, counts, lastSale } = cells
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
 * Takes a deleted sale (or refund) out of a held row's hours. Returns true when it was the row's last
 * sale: the one before it is not held, so the store must be read again.
 */
export function removeSale(cells: ViewCells, row: number, at: number, amount: number) {
  const { origin, end, sums, counts, lastSale } = cells
  if (at >= origin && at < end) {
    const index = row * windowHours + Math.floor((at - origin) / hourMs)
    sums.add(index, -amount)
    if (amount > 0) counts.add(index, -1)
  }
  return amount > 0 && lastSale[row] === at
}
