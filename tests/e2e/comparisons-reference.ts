// A slow, obviously correct reference for the sales screen's comparisons, computed record by
// record from the API's own answer, written from the definitions (docs/product.md §3, the comments of
// domain/periods.ts, usual.ts, hour-grid.ts) without importing any of the app's code, so the e2e tests check the app
// against an independent computation.
//
// Days and hours are UTC. "Up to the same time" cuts the earlier period at the same elapsed time; a
// record counts for the share of its UTC hour that a range covers (the hour a period is cut in counts
// for the elapsed fraction of it). The current period counts the whole hour `now` falls in.

export interface UsageRecord {
  createdAt: string
  amount: number
}

export interface Sale {
  at: number
  amount: number
}

const hourMs = 3_600_000
const dayMs = 24 * hourMs

export const toSales = (records: UsageRecord[]): Sale[] =>
  records.map(({ createdAt, amount }) => ({ at: Date.parse(createdAt), amount }))

const hourStart = (ms: number) => Math.floor(ms / hourMs) * hourMs
const endOfHour = (ms: number) => hourStart(ms) + hourMs
const startOfDay = (ms: number) => Math.floor(ms / dayMs) * dayMs

/** Sum and number of sales in [from, to), each record weighted by the share of its UTC hour inside the range. */
export function weighted(sales: Sale[], from: number, to: number) {
  let sum = 0
  let count = 0
  for (const { at, amount } of sales) {
    const start = hourStart(at)
    const covered = Math.min(to, start + hourMs) - Math.max(from, start)
    if (covered <= 0) continue
    sum += (amount * covered) / hourMs
    if (amount > 0) count += covered / hourMs
  }
  return { sum, count }
}

const ratio = (current: number, previous: number) => (previous > 0 ? current / previous - 1 : null)

/** This year from 1 January up to now against last year from its 1 January up to the same elapsed time. */
export function yearChange(sales: Sale[], now: number) {
  const year = new Date(now).getUTCFullYear()
  const start = Date.UTC(year, 0, 1)
  const previousStart = Date.UTC(year - 1, 0, 1)
  const current = weighted(sales, start, endOfHour(now))
  const previous = weighted(sales, previousStart, Math.min(previousStart + (now - start), start))
  return ratio(current.sum, previous.sum)
}

/** This month up to now against the month before up to the same elapsed time (never past its end). */
export function monthChange(sales: Sale[], now: number) {
  const date = new Date(now)
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
  const previousStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1)
  const current = weighted(sales, start, endOfHour(now))
  const previous = weighted(sales, previousStart, Math.min(previousStart + (now - start), start))
  return ratio(current.sum, previous.sum)
}

/** Today up to now, and its change against the mean of the same weekday of the 4 weeks before, up to the same time of day. */
export function today(sales: Sale[], now: number) {
  const day = startOfDay(now)
  const current = weighted(sales, day, endOfHour(now))
  let usual = 0
  for (let week = 1; week <= 4; week++) {
    const then = day - week * 7 * dayMs
    usual += weighted(sales, then, then + (now - day)).sum
  }
  return { sum: current.sum, count: current.count, change: ratio(current.sum, usual / 4) }
}

/**
 * The month-end estimate: the month's sum so far, plus, for the rest of today and every later day of the
 * month, the mean over the same UTC weekday's days among the 56 days before today of the same part of
 * the day.
 */
export function projection(sales: Sale[], now: number) {
  const day = startOfDay(now)
  const date = new Date(now)
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
  const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
  /** The mean of [fromOfDay, toOfDay) (ms into the day) over the days of this weekday in the 56 days before today. */
  const usual = (weekday: number, fromOfDay: number, toOfDay: number) => {
    let sum = 0
    let days = 0
    for (let back = 1; back <= 56; back++) {
      const then = day - back * dayMs
      if (new Date(then).getUTCDay() !== weekday) continue
      sum += weighted(sales, then + fromOfDay, then + toOfDay).sum
      days++
    }
    return sum / days
  }
  let estimate = weighted(sales, start, endOfHour(now)).sum
  estimate += usual(new Date(day).getUTCDay(), now - day, dayMs)
  for (let later = day + dayMs; later < end; later += dayMs)
    estimate += usual(new Date(later).getUTCDay(), 0, dayMs)
  return estimate
}

const weekdays = ['월', '화', '수', '목', '금', '토', '일']
const isoWeekday: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 }

/**
 * The UTC month's sales by weekday (Monday first) and hour of the device's clock (`timeZone`), and the
 * busiest two adjacent hours of one weekday in words, the earliest on a tie.
 */
export function hours(sales: Sale[], year: number, month: number, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: 'numeric',
    hourCycle: 'h23',
  })
  const grid = Array.from({ length: 7 }, () => Array<number>(24).fill(0))
  const from = Date.UTC(year, month - 1, 1)
  const to = Date.UTC(year, month, 1)
  for (const { at, amount } of sales) {
    if (at < from || at >= to) continue
    const local = Object.fromEntries(parts.formatToParts(at).map((part) => [part.type, part.value]))
    const row = grid[isoWeekday[local.weekday ?? ''] as number] as number[]
    const hour = Number(local.hour)
    row[hour] = (row[hour] as number) + amount
  }
  let best: { weekday: number; hour: number; sum: number } | null = null
  for (let weekday = 0; weekday < 7; weekday++) {
    for (let hour = 0; hour < 23; hour++) {
      const sum = (grid[weekday]?.[hour] as number) + (grid[weekday]?.[hour + 1] as number)
      if (sum > 0 && (best === null || sum > best.sum)) best = { weekday, hour, sum }
    }
  }
  const busiest = best
    ? `가장 바쁜 시간: ${weekdays[best.weekday]} ${best.hour}–${best.hour + 2}시`
    : '이 달에는 아직 매출이 없습니다'
  return { grid, busiest, weekdays }
}

/** `▲ 12.3%` / `▼ 4.0%` / `0.0%` / `—`, and the words a screen reader hears. */
export function changeText(value: number | null, digits: number) {
  if (value === null) return { sign: '—', words: '비교할 자료 없음' }
  const percent = Math.abs(value * 100)
  const shown = `${percent.toFixed(digits)}%`
  if (percent < 0.5 * 10 ** -digits) return { sign: shown, words: '변동 없음' }
  return value > 0
    ? { sign: `▲ ${shown}`, words: `${shown} 증가` }
    : { sign: `▼ ${shown}`, words: `${shown} 감소` }
}
