// A store's row of the stores overview as the clock moves it (docs/product.md §2.5 and §8.5, decision
// 237). Between sales the row still moves: the usual and the month before grow with the time of day
// (their current hour prorated), and a store with no sale turns quiet. The server sends, once, what
// makes those moves (`overviewClock`: the usual's hours of the day, the month before's hours of its
// same day, and for a store quiet within it the quiet model's hours), and the app and the server both
// compute the row at any instant with `figuresAt`; the stream then sends only what moved otherwise.
//
// The hours sent are those of the day from the clock's hour `from` on (`clockFrom`), what came before
// summed. The month before, today, the month and the quiet rule come out bit for bit as
// storeFigures computes them (every partial sum of whole hours is an exact integer, and the quiet rule
// runs expectedBetween itself); the usual is summed over its weeks hour by hour, so it may differ in the
// last bits (tests/domain/overview-clock.test.ts). A clock holds until the end of its UTC day, the
// first later hour already holding a sale (a device's clock ahead), or the instant the store turns
// quiet (`clockEnd`; a new clock then carries the quiet rule's hours). Pure: no clock of its own.
import type { StoreChange, StoreClock, StoreOverview } from '../contract/api.ts'
import type { Buckets } from './buckets.ts'
import { dayMs, endOfHour, hourMs, startOfDay, weekMs, yearOf } from './calendar.ts'
import { monthBefore, periodTotals, type Totals } from './periods.ts'
import { cellOf, expectedBetween, HISTORY_WEEKS, type QuietModel } from './quiet-model.ts'
import { type StoreFigures, withoutSums } from './store-overview.ts'
import { hourOfYear, storeHistory, weeksBefore, yearHolding } from './usual.ts'

/** What a row is made of beside its clock: figures that only a sale (or a refund) moves. */
export interface StoreMade {
  /** Without `sum` for a member the owner hides won amounts from (docs/product.md §15). */
  today: Totals | { sum?: undefined; count: number }
  month: Totals | { sum?: undefined; count: number }
  lastSaleAt: string | null
}

const cells = 7 * 24
const historyMs = HISTORY_WEEKS * weekMs

/**
 * The first instant in [from, end) at which the quiet rule's evidence since `since` reaches the
 * threshold, or null: expectedBetween's own loop, hour by hour (the hours before an instant's hour add
 * the same whatever the instant), then halving within the hour it crosses in.
 */
function quietFrom(model: QuietModel, since: number, from: number, end: number): number | null {
  let sum = 0
  for (let hour = Math.floor(since / hourMs) * hourMs; hour < end; hour += hourMs) {
    const cell = model.shape[cellOf(hour)] as number
    const begin = Math.max(hour, since)
    const evidence = (to: number) =>
      (sum + cell * ((Math.min(hour + hourMs, to) - begin) / hourMs)) * model.level
    let high = Math.min(hour + hourMs, end) - 1
    if (high >= from && evidence(high) >= model.threshold) {
      let low = Math.max(from, hour)
      while (low < high) {
        const middle = Math.floor((low + high) / 2)
        if (evidence(middle) >= model.threshold) high = middle
        else low = middle + 1
      }
      return high
    }
    sum += cell * ((hour + hourMs - begin) / hourMs)
  }
  return null
}

/** The quiet model's hours from the hour of `since` to `end` (all 168 cells once they wrap). */
function quietHours(model: QuietModel, since: number, end: number) {
  const first = Math.floor(since / hourMs) * hourMs
  const count = Math.ceil((end - first) / hourMs)
  if (count >= cells) return { cell: 0, cells: model.shape.slice() }
  const cell = cellOf(first)
  return {
    cell,
    cells: Array.from({ length: count }, (_, i) => model.shape[(cell + i) % cells] as number),
  }
}

/** The day's hours of `buckets` from the UTC day starting at `day`: sums and counts. */
const dayHours = (buckets: Buckets, day: number) => {
  const first = hourOfYear(day)
  return {
    sums: buckets.hourSums.slice(first, first + 24),
    counts: buckets.hourCounts.slice(first, first + 24),
  }
}

/**
 * What a store's row is made of at `now` and its clock for the rest of now's UTC day (hours from 0),
 * from its buckets of now's year and the year before; null for buckets of another year than now's.
 * `model` is the quiet model of now's day (null: none).
 */
export function overviewClock(
  current: Buckets,
  previous: Buckets | undefined,
  now: Date,
  model: QuietModel | null,
): { made: StoreMade; clock: StoreClock } | null {
  const at = now.getTime()
  if (current.year !== yearOf(at)) return null
  const day = startOfDay(at)
  const dayEnd = day + dayMs
  const month = now.getUTCMonth() + 1
  const monthStart = Date.UTC(current.year, month - 1, 1)
  const made: StoreMade = {
    today: periodTotals(current, day, endOfHour(at)),
    month: periodTotals(current, monthStart, endOfHour(at)),
    lastSaleAt: current.lastSaleAt === null ? null : new Date(current.lastSaleAt).toISOString(),
  }
  // Until the first later hour of the day that already holds a record (it counts once the clock is in it).
  let until = dayEnd
  for (let hour = endOfHour(at); hour < dayEnd; hour += hourMs) {
    const index = hourOfYear(hour)
    if (current.hourSums[index] !== 0 || current.hourCounts[index] !== 0) {
      until = hour
      break
    }
  }
  // The usual: the same weekday of each of the 4 weeks before whose year is held, hour by hour.
  const history = storeHistory(current, previous)
  const usual = {
    sum: 0,
    count: 0,
    sums: Array<number>(24).fill(0),
    counts: Array<number>(24).fill(0),
    weeks: 0,
  }
  for (let week = 1; week <= 4; week++) {
    const weekDay = weeksBefore(day, week)
    const buckets = yearHolding(history, weekDay)
    if (!buckets) continue
    const hours = dayHours(buckets, weekDay)
    hours.sums.forEach((sum, hour) => {
      usual.sums[hour] = (usual.sums[hour] as number) + sum
      usual.counts[hour] = (usual.counts[hour] as number) + (hours.counts[hour] as number)
    })
    usual.weeks++
  }
  // The month before up to the same elapsed time: its same day's hours, or all of it when it is shorter.
  const before = monthBefore(current, previous, month)
  const previousStart = Date.UTC(current.year, month - 2, 1)
  const previousBuckets = before.buckets?.year === yearOf(previousStart) ? before.buckets : undefined
  const sameDay = previousStart + (day - monthStart)
  let previousHours: StoreClock['previous'] = null
  if (previousBuckets && sameDay >= monthStart)
    previousHours = { ...periodTotals(previousBuckets, previousStart, monthStart), sums: [], counts: [] }
  else if (previousBuckets)
    previousHours = {
      ...periodTotals(previousBuckets, previousStart, sameDay),
      ...dayHours(previousBuckets, sameDay),
    }
  // The quiet rule: its hours once the store is quiet within the day, else the clock ends when it turns quiet.
  const since = current.lastSaleAt ?? history[1]?.lastSaleAt ?? null
  let quiet: StoreClock['quiet'] = null
  if (model && since !== null) {
    // Over 8 weeks without a sale the evidence's window slides: the rule's own loop, every cell.
    const from = since + historyMs < dayEnd ? day : quietFrom(model, since, Math.max(day, since + 1), dayEnd)
    if (from !== null && from <= at)
      quiet = { since, ...quietHours(model, since, dayEnd), level: model.level, threshold: model.threshold }
    else if (from !== null && from < until) quiet = { at: from }
  }
  return {
    made,
    clock: { until, from: 0, usual: usual.weeks > 0 ? usual : null, previous: previousHours, quiet },
  }
}

/** The end of the instants a clock holds for: its `until`, or the instant its store turns quiet. */
export const clockEnd = (clock: StoreClock) =>
  clock.quiet && 'at' in clock.quiet ? Math.min(clock.until, clock.quiet.at) : clock.until

/** The clock as sent at `at`: its hours from the hour `at` is in, those before summed into it. */
export function clockFrom(clock: StoreClock, at: number): StoreClock {
  const from = Math.max(clock.from, Math.min(23, Math.floor((at - startOfDay(clock.until - 1)) / hourMs)))
  const skip = (hours: NonNullable<StoreClock['previous']>) => {
    const cut = Math.min(from - clock.from, hours.sums.length)
    let { sum, count } = hours
    for (let hour = 0; hour < cut; hour++) {
      sum += hours.sums[hour] as number
      count += hours.counts[hour] as number
    }
    return { ...hours, sum, count, sums: hours.sums.slice(cut), counts: hours.counts.slice(cut) }
  }
  return {
    ...clock,
    from,
    usual: clock.usual && { ...skip(clock.usual), weeks: clock.usual.weeks },
    previous: clock.previous && skip(clock.previous),
  }
}

/** Hours summed up to `t` (the hour it is in prorated), from the clock's first hour, the day starting at `day`. */
function grown(hours: NonNullable<StoreClock['previous']>, from: number, day: number, t: number): Totals {
  let { sum, count } = hours
  const hour = Math.floor((t - day) / hourMs)
  for (let index = 0; index < hours.sums.length; index++) {
    const start = day + (from + index) * hourMs
    if (from + index < hour) {
      sum += hours.sums[index] as number
      count += hours.counts[index] as number
    } else if (from + index === hour && t > start) {
      const fraction = (t - start) / hourMs
      sum += (hours.sums[index] as number) * fraction
      count += (hours.counts[index] as number) * fraction
    }
  }
  return { sum, count }
}

/**
 * The store's figures at `t` from what its row is made of and its clock, as storeFigures computes
 * them: `t` is taken within the clock (from its first hour to just before `until`).
 */
export function figuresAt(made: StoreMade, clock: StoreClock, t: number): StoreFigures {
  const day = startOfDay(clock.until - 1)
  const at = Math.min(Math.max(t, day + clock.from * hourMs), clockEnd(clock) - 1)
  const usualHours = clock.usual && grown(clock.usual, clock.from, day, at)
  const weeks = clock.usual?.weeks ?? 0
  const previousHours = clock.previous && grown(clock.previous, clock.from, day, at)
  let quiet: StoreFigures['quiet'] = null
  if (clock.quiet && 'since' in clock.quiet && clock.quiet.since < at) {
    const { since, cell, level, threshold } = clock.quiet
    const shape = Array<number>(cells)
    clock.quiet.cells.forEach((value, i) => {
      shape[(cell + i) % cells] = value
    })
    const expected = expectedBetween({ shape, level } as QuietModel, since, at)
    if (expected >= threshold)
      quiet = { since: new Date(since).toISOString(), expected: Math.round(expected) }
  }
  const figures: StoreFigures = {
    today: made.today,
    usual:
      usualHours && (usualHours.sum !== 0 || usualHours.count !== 0)
        ? { sum: usualHours.sum / weeks, count: usualHours.count / weeks }
        : null,
    month: made.month,
    previousMonth:
      previousHours && (previousHours.sum !== 0 || previousHours.count !== 0) ? previousHours : null,
    lastSaleAt: made.lastSaleAt,
    quiet,
  }
  // A row without won amounts (docs/product.md §15): its clock's sums are 0, its figures counts only.
  return made.today.sum === undefined ? withoutSums(figures) : figures
}

/**
 * A store kept, with what moved of it (decision 237): its figures that only a sale moves, its devices,
 * its clock, or its clock's quiet rule alone. A whole store (a server that sends them) replaces it.
 */
export function withChange(store: StoreOverview, change: StoreOverview | StoreChange): StoreOverview {
  if ('usual' in change) return change
  const { quiet, clock, ...moved } = change
  const next: StoreOverview = { ...store, ...moved }
  const kept = clock ?? store.clock
  if (kept) next.clock = quiet === undefined ? kept : { ...kept, quiet }
  return next
}
