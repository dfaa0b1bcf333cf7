// The view's cells: the window of hours shared by every store (from the start of the month two months
// before the load, 100 days long), each store's hourly sums and counts in two arrays of all stores
// together, its last sale and the revisions of the two years it holds. The other files of this folder
// fill these (read.ts), change them (apply.ts, refresh.ts) and read them out (buckets.ts).
import { hourMs, yearOf } from '../../domain/calendar.ts'

/** The window's length, in hours: 100 days, from the start of the month two months before the load. */
export const windowHours = 100 * 24

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

export type HourCells = ReturnType<typeof hourCells>

/** The window's origin for a load at `now`: 00:00 UTC of the first day of the month two months before. */
export function windowOrigin(now: number) {
  const date = new Date(now)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 2, 1)
}

/** What the view holds of the stores it was loaded with. */
export interface ViewCells {
  /** The window's first instant (epoch ms, a UTC month start) and its end (exclusive). */
  origin: number
  end: number
  /** The load's year: the revisions held are of this year and the one before. */
  year: number
  /** The stores held, and each one's row in the arrays. */
  ids: number[]
  rowOf: Map<number, number>
  /** Hourly sums and counts: row × windowHours + the hour since the origin. */
  sums: HourCells
  counts: HourCells
  /** Each row's last sale up to the end of the load's year (epoch ms; NaN: none). */
  lastSale: Float64Array
  /** The revision of each row's two years (usage_years.version): at `revisionSlot`. */
  revisions: Float64Array
}

/** Empty cells for `ids` at `now`. */
export function viewCells(now: number, ids: number[]): ViewCells {
  const origin = windowOrigin(now)
  const rowOf = new Map<number, number>()
  ids.forEach((id, index) => {
    rowOf.set(id, index)
  })
  return {
    origin,
    end: origin + windowHours * hourMs,
    year: yearOf(now),
    ids,
    rowOf,
    sums: hourCells(ids.length * windowHours, Int32Array),
    counts: hourCells(ids.length * windowHours, Uint16Array),
    lastSale: new Float64Array(ids.length).fill(Number.NaN),
    revisions: new Float64Array(ids.length * 2),
  }
}

/** The index in `revisions` of a row's year (the load's year or the one before). */
export function revisionSlot(cells: ViewCells, row: number, year: number) {
  return row * 2 + (year === cells.year ? 0 : 1)
}
