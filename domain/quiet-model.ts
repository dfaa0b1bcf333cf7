// The quiet rule's model of one store (docs/product.md §2.5), from its own hourly sale counts only: what
// it is expected to sell hour by hour, and how many of those expected sales may go missing before its
// silence is news. Counting the sales expected since the last one and speaking at a threshold is the
// optimal detector of "the rate fell to zero" (CUSUM); the threshold is where the store's own history
// says a silence that long happens at most once a month.
//
// - Expected rate: the store's hour-of-day profile over the window (the HISTORY_WEEKS weeks before
//   today), shrunk toward its own weekday × hour cell where the cell has sales enough (empirical Bayes,
//   weight n / (n + CELL_PRIOR_SALES), n the cell's sales), times its recent level (the last LEVEL_DAYS
//   days' sales over what that shape expected of them).
// - The tail: a gap between sales, counted in expected sales, is Exp(1) for a Poisson store and heavier
//   when customers come in visits (a wash, a dryer 40 minutes later): P(gap > x) = p_u · exp(-(x - u)/s),
//   s about the sales per visit. The buckets hold hours, not instants, so s is fitted on what they show
//   of that tail: an hour expecting μ sales is empty with probability exp(-μ/s) (visits arrive as a
//   Poisson process of μ/s an hour), by maximum likelihood over the window's hours and 3-hour spans
//   (s at least 1), leaving out the silences too long to be the store's own (outages).
//   Then p_u = exp(-u/s)/s, and the threshold T keeps (sales a month) × P(gap > T) ≤ FALSE_ALERT_BUDGET:
//   T = s · ln(sales a month / (s · budget)), clamped to [MIN_EXPECTED_SALES, MAX_EXPECTED_SALES].
// - Too little history (fewer than MIN_HISTORY_WEEKS weeks, fewer than MIN_SALES sales): no model.
//
// The model depends only on the days before `day`, so it holds for the whole UTC day. Pure: no clock.
import { dayMs, hourMs } from './calendar.ts'
import { type History, hourOfYear, yearHolding } from './usual.ts'

/** What the rule reads of one year's buckets. */
export interface HourlyHistory {
  year: number
  /** Sale counts per UTC day of the year and hour: index = day of year (0-based) × 24 + hour. */
  hourCounts: number[]
}

/** How many previous weeks make the store's shape and its tail. */
export const HISTORY_WEEKS = 8
/** With fewer weeks of history than this, nothing is said. */
export const MIN_HISTORY_WEEKS = 4
/** With fewer sales than this in the weeks read, nothing is said: too few gaps to know the tail. */
export const MIN_SALES = 100
/** The recent level: the last days' sales over what the shape expected of them. */
export const LEVEL_DAYS = 7
/** A weekday × hour cell weighs n / (n + this) against the hour-of-day profile (n: its sales). */
export const CELL_PRIOR_SALES = 20
/** Expected sales added to both sides of the level, so a sparse week moves it less. */
const LEVEL_PRIOR_SALES = 10
/** False alerts a month the threshold allows (the calibration's target is at most 1). */
export const FALSE_ALERT_BUDGET = 0.35
/** The threshold's clamp, in expected sales: never below (a lull), never above (hours of a dead store). */
export const MIN_EXPECTED_SALES = 4
export const MAX_EXPECTED_SALES = 40
/** The scale's range: at least a Poisson store's, at most this many sales a visit. */
const MIN_SCALE = 1
const MAX_SCALE = 10
/**
 * The window lengths (hours) the scale is fitted on; the largest scale found is kept. A visit's sales
 * spread over up to an hour and a half, so a one-hour window splits visits and sees them as less
 * clustered than they are; three hours hold most of a visit.
 */
const WINDOW_HOURS = [1, 3]
/** Hours expecting fewer sales than this say nothing about the tail (closed hours). */
const INFORMATIVE_HOUR = 0.05
const monthDays = 30.44

export interface QuietModel {
  /** The UTC day (its 00:00) the model is for. */
  day: number
  /** Expected sales of each UTC weekday (0 Sunday) × hour, index weekday × 24 + hour, before the level. */
  shape: number[]
  /** The recent level the shape is multiplied by. */
  level: number
  /** The tail's scale s (about the sales a visit; 1 for a Poisson store). */
  scale: number
  /** Sales a day over the weeks read, at the recent level. */
  salesPerDay: number
  /** Expected sales without a sale at which the store is quiet. */
  threshold: number
  /** Whether the threshold was clamped, and to which end. */
  clamped: 'min' | 'max' | null
}

/** The cell (UTC weekday × 24 + hour) of an instant. */
export const cellOf = (at: number) => ((Math.floor(at / dayMs) + 4) % 7) * 24 + (Math.floor(at / hourMs) % 24) // 1 January 1970 was a Thursday

/** The first day (its 00:00 UTC) with a sale in the history, or null. */
function firstSaleDay(history: History<HourlyHistory>): number | null {
  let first: number | null = null
  for (const buckets of history) {
    if (!buckets) continue
    const index = buckets.hourCounts.findIndex((count) => count > 0)
    if (index < 0) continue
    const at = Date.UTC(buckets.year, 0, 1) + Math.floor(index / 24) * dayMs
    if (first === null || at < first) first = at
  }
  return first
}

/** The days read (newest first) and their 24 hourly counts: the store's days before `day`, held, up to HISTORY_WEEKS weeks. */
function daysRead(history: History<HourlyHistory>, day: number) {
  const first = firstSaleDay(history)
  const days: { start: number; counts: number[] }[] = []
  if (first === null) return days
  for (let back = 1; back <= HISTORY_WEEKS * 7; back++) {
    const start = day - back * dayMs
    const buckets = yearHolding(history, start)
    if (start < first || !buckets) break
    const index = hourOfYear(start)
    days.push({ start, counts: buckets.hourCounts.slice(index, index + 24) })
  }
  return days
}

/** The shape: the hour-of-day profile by weekday, shrunk toward each weekday × hour cell by its sales. */
export function rateShape(days: readonly { start: number; counts: readonly number[] }[]): number[] {
  const profile = Array<number>(24).fill(0)
  const cells = Array<number>(7 * 24).fill(0)
  const weekdayDays = Array<number>(7).fill(0)
  const weekdaySales = Array<number>(7).fill(0)
  let total = 0
  for (const { start, counts } of days) {
    const weekday = new Date(start).getUTCDay()
    weekdayDays[weekday] = (weekdayDays[weekday] as number) + 1
    counts.forEach((count, hour) => {
      profile[hour] = (profile[hour] as number) + count / days.length
      cells[weekday * 24 + hour] = (cells[weekday * 24 + hour] as number) + count
      weekdaySales[weekday] = (weekdaySales[weekday] as number) + count
      total += count
    })
  }
  const perDay = total / Math.max(1, days.length)
  return cells.map((n, cell) => {
    const weekday = Math.floor(cell / 24)
    const seen = weekdayDays[weekday] as number
    const dayFactor = seen > 0 && perDay > 0 ? (weekdaySales[weekday] as number) / seen / perDay : 1
    const base = dayFactor * (profile[cell % 24] as number)
    if (seen === 0) return base
    const weight = n / (n + CELL_PRIOR_SALES)
    return weight * (n / seen) + (1 - weight) * base
  })
}

/**
 * The tail's scale s from windows of expected μ sales and whether each was empty, by maximum likelihood
 * of P(empty) = exp(-μ/s): the score in θ = 1/s, -Σ_empty μ + Σ_sold μ / (e^{μθ} - 1), falls with θ, so
 * bisection finds its zero, in [1/MAX_SCALE, 1/MIN_SCALE].
 */
export function fitScale(windows: readonly { expected: number; empty: boolean }[]): number {
  let emptyExpected = 0
  // Windows of the same cells expect the same: each value once, with how many windows sold.
  const sold = new Map<number, number>()
  for (const { expected, empty } of windows) {
    if (expected < INFORMATIVE_HOUR) continue
    if (empty) emptyExpected += expected
    else sold.set(expected, (sold.get(expected) ?? 0) + 1)
  }
  const score = (theta: number) => {
    let sum = -emptyExpected
    for (const [expected, times] of sold) sum += (times * expected) / Math.expm1(expected * theta)
    return sum
  }
  let low = 1 / MAX_SCALE
  let high = 1 / MIN_SCALE
  if (score(high) >= 0) return MIN_SCALE
  if (score(low) <= 0) return MAX_SCALE
  // 24 halvings: θ within a millionth.
  for (let step = 0; step < 24; step++) {
    const mid = (low + high) / 2
    if (score(mid) > 0) low = mid
    else high = mid
  }
  return 2 / (low + high)
}

/** The threshold for a scale and sales a month: (sales a month) × exp(-T/s)/s = FALSE_ALERT_BUDGET, clamped. */
export function tailThreshold(scale: number, salesPerMonth: number) {
  const raw = scale * Math.log(salesPerMonth / (scale * FALSE_ALERT_BUDGET))
  if (!(raw > MIN_EXPECTED_SALES)) return { threshold: MIN_EXPECTED_SALES, clamped: 'min' as const }
  if (raw > MAX_EXPECTED_SALES) return { threshold: MAX_EXPECTED_SALES, clamped: 'max' as const }
  return { threshold: raw, clamped: null }
}

/** One hour of the days read: its expected sales by the shape, its count, and whether it is left out. */
interface HourRead {
  expected: number
  count: number
  recent: boolean
  out: boolean
}

/**
 * Leaves out the hours of every silence (a run of hours without a sale) longer than `cutoff` expected
 * sales: an outage in the history is no measure of the store's own gaps, nor of its level.
 */
function leaveOutSilences(hours: HourRead[], cutoff: number) {
  let runStart = 0
  let runExpected = 0
  hours.forEach((hour, index) => {
    hour.out = false
    if (hour.count > 0) {
      runStart = index + 1
      runExpected = 0
      return
    }
    runExpected += hour.expected
    if (runExpected > cutoff) for (let i = runStart; i <= index; i++) (hours[i] as HourRead).out = true
  })
}

/**
 * The windows of `length` consecutive hours read (sliding, none with a left-out hour): their expected
 * sales and whether they were empty.
 */
function windowsOf(hours: readonly HourRead[], length: number) {
  const windows: { expected: number; empty: boolean }[] = []
  for (let start = 0; start + length <= hours.length; start++) {
    let expected = 0
    let empty = true
    let out = false
    for (let i = start; i < start + length; i++) {
      const hour = hours[i] as HourRead
      expected += hour.expected
      empty &&= hour.count === 0
      out ||= hour.out
    }
    if (!out) windows.push({ expected, empty })
  }
  return windows
}

/** The level, the scale and the threshold from the hours read, leaving out silences over `cutoff`. */
function fitHours(hours: HourRead[], cutoff: number, salesPerDay: number) {
  leaveOutSilences(hours, cutoff)
  let recentSales = 0
  let recentExpected = 0
  for (const hour of hours)
    if (hour.recent && !hour.out) {
      recentSales += hour.count
      recentExpected += hour.expected
    }
  const level = (recentSales + LEVEL_PRIOR_SALES) / (recentExpected + LEVEL_PRIOR_SALES)
  const scale = Math.max(...WINDOW_HOURS.map((length) => fitScale(windowsOf(hours, length))))
  return {
    level,
    scale,
    salesPerDay: salesPerDay * level,
    ...tailThreshold(scale, salesPerDay * level * monthDays),
  }
}

/**
 * The store's model for the UTC day starting at `day`, or null with too little history. Fitted twice:
 * first leaving out silences over MAX_EXPECTED_SALES, then those over twice the threshold found (a
 * silence the store's own tail makes less likely than its budget squared: an outage).
 */
export function quietModel(history: History<HourlyHistory>, day: number): QuietModel | null {
  const days = daysRead(history, day)
  if (days.length < MIN_HISTORY_WEEKS * 7) return null
  let sales = 0
  for (const { counts } of days) for (const count of counts) sales += count
  if (sales < MIN_SALES) return null
  const shape = rateShape(days)
  const hours: HourRead[] = []
  for (let index = days.length - 1; index >= 0; index--) {
    const { start, counts } = days[index] as (typeof days)[number]
    const weekday = new Date(start).getUTCDay()
    counts.forEach((count, hour) => {
      hours.push({
        expected: shape[weekday * 24 + hour] as number,
        count,
        recent: index < LEVEL_DAYS,
        out: false,
      })
    })
  }
  const first = fitHours(hours, MAX_EXPECTED_SALES, sales / days.length)
  return { day, shape, ...fitHours(hours, 2 * first.threshold, sales / days.length) }
}

/** The sales the model expects in [from, to) (the hours prorated); at most HISTORY_WEEKS weeks are counted. */
export function expectedBetween(model: QuietModel, from: number, to: number): number {
  const start = Math.max(from, to - HISTORY_WEEKS * 7 * dayMs)
  let expected = 0
  for (let hour = Math.floor(start / hourMs) * hourMs; hour < to; hour += hourMs) {
    const share = (Math.min(hour + hourMs, to) - Math.max(hour, start)) / hourMs
    expected += (model.shape[cellOf(hour)] as number) * share
  }
  return expected * model.level
}

/** The store's usual daytime rate (09:00–21:00 Korea time, 00–12 UTC), expected sales an hour at its level. */
export function daytimeRate(model: QuietModel): number {
  let sum = 0
  for (let weekday = 0; weekday < 7; weekday++)
    for (let hour = 0; hour < 12; hour++) sum += model.shape[weekday * 24 + hour] as number
  return (sum / (7 * 12)) * model.level
}

/** How long a silence at the usual daytime rate takes to reach the threshold, in minutes; null when it never would. */
export function silenceMinutes(model: QuietModel): number | null {
  const rate = daytimeRate(model)
  return rate > 0 ? Math.round((model.threshold / rate) * 60) : null
}
