// Reading a store's hours out of the view's cells as the app's figures read them: into one of two
// scratch Buckets (this year's, last year's) reused from store to store, zeroing what was written for
// the store before. The figures equal those of the full years' buckets as long as `now` lies in the
// window (tests/server/stores/view.test.ts).
import { type Buckets, emptyBuckets } from '../../domain/buckets.ts'
import { hourMs, yearOf, yearStart } from '../../domain/calendar.ts'
import { type ViewCells, windowHours } from './cells.ts'

/** `bucketsOf(storeId, now)`: the store's buckets of `now`'s year and the year before (scratch: valid until the next call). */
export function scratchBuckets(cells: ViewCells) {
  const { origin, end, rowOf, sums, counts, lastSale } = cells
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

  return function bucketsOf(storeId: number, at: number): [Buckets, Buckets] {
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
  }
}
