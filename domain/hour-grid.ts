// The hours of a month: its sales by weekday and hour of the device's clock, and the busiest two
// hours (docs/product.md §2.3, decision 21). Pure functions of the buckets and the device's offset.
import type { Buckets } from './buckets.ts'
import { hourMs, yearStart } from './calendar.ts'

export interface BusiestHours {
  /** 0 = Monday … 6 = Sunday (weekdayLabels). */
  weekday: number
  /** Local hours: the span is [fromHour, toHour), toHour = fromHour + 2. */
  fromHour: number
  toHour: number
  sum: number
}

/** Weekday labels in the grid's order: Monday first. */
export const weekdayLabels = ['월', '화', '수', '목', '금', '토', '일'] as const

/** The device's offset from UTC in minutes east (+540 in Korea): the opposite of getTimezoneOffset. */
export const deviceOffsetMinutes = (date: Date) => -date.getTimezoneOffset()

/**
 * The sums of a month's (1-12) sales by weekday and hour of the device's local time: grid[weekday][hour],
 * weekday 0 = Monday … 6 = Sunday. The month is the buckets' UTC month (the same sales as its total);
 * each UTC hour moves by the offset (minutes east of UTC, deviceOffsetMinutes) rounded to the nearest
 * hour, a half hour upward (+5:30 → +6, −3:30 → −3), so an hour falls in one cell whole.
 */
export function hourGrid(buckets: Buckets, month: number, offsetMinutes: number): number[][] {
  const grid = Array.from({ length: 7 }, () => Array<number>(24).fill(0))
  const shift = Math.round(offsetMinutes / 60) * hourMs
  const start = yearStart(buckets.year)
  const first = (Date.UTC(buckets.year, month - 1, 1) - start) / hourMs
  const last = (Date.UTC(buckets.year, month, 1) - start) / hourMs
  for (let hour = first; hour < last; hour++) {
    const local = new Date(start + hour * hourMs + shift)
    const row = grid[(local.getUTCDay() + 6) % 7] as number[]
    const at = local.getUTCHours()
    row[at] = (row[at] as number) + (buckets.hourSums[hour] as number)
  }
  return grid
}

/**
 * The busiest two hours of a grid: the two adjacent hours of one weekday (within the day: 22–24 at the
 * latest) with the largest sum; on a tie the earliest (Monday first, then the earlier hour). Null when
 * no two hours sum above zero (a month without sales).
 */
export function busiestHours(grid: number[][]): BusiestHours | null {
  let best: BusiestHours | null = null
  grid.forEach((row, weekday) => {
    for (let hour = 0; hour + 1 < row.length; hour++) {
      const sum = (row[hour] as number) + (row[hour + 1] as number)
      if (sum > 0 && (best === null || sum > best.sum))
        best = { weekday, fromHour: hour, toHour: hour + 2, sum }
    }
  })
  return best
}
