// Slow, obviously correct references for the stores overview and the quiet-store notice, computed
// straight from the server's own records (the API's answer), written from the product's definitions
// (docs/product.md §2.3, the quiet store) and not from the app's code: no buckets, a filter over the records for
// every question. Days and hours are UTC, as the app's are.
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test'
import { serverRecords, won } from './helpers.ts'

const hourMs = 3_600_000
const dayMs = 24 * hourMs
const weekMs = 7 * dayMs

export interface Sale {
  at: number
  amount: number
}

/** A store's records of this UTC year and the previous one (what the app fetches), as instants and amounts. */
export async function storeRecords(
  request: APIRequestContext,
  context: BrowserContext,
  storeId: number,
  now: number,
): Promise<Sale[]> {
  const year = new Date(now).getUTCFullYear()
  const records = [
    ...(await serverRecords(request, context, storeId, year - 1)),
    ...(await serverRecords(request, context, storeId, year)),
  ]
  return records.map(({ createdAt, amount }) => ({ at: Date.parse(createdAt), amount }))
}

/** The page's clock (the one the app read when it rendered). */
export const pageNow = (page: Page) => page.evaluate(() => Date.now())

/**
 * What a reference says at every second of [from, to], deduplicated: a screen rendered at an unknown
 * moment inside that span shows one of these. A span of a few seconds gives one or two.
 */
export function overSpan<T>(from: number, to: number, reference: (now: number) => T): T[] {
  const seen = new Map<string, T>()
  for (let at = from; ; at = Math.min(at + 1000, to)) {
    const value = reference(at)
    seen.set(JSON.stringify(value), value)
    if (at >= to) break
  }
  return [...seen.values()]
}

const startOfDay = (ms: number) => ms - (((ms % dayMs) + dayMs) % dayMs)
const startOfHour = (ms: number) => ms - (((ms % hourMs) + hourMs) % hourMs)
const isSale = (record: Sale) => record.amount > 0

/** Sales (amount above zero) in [from, to). */
const salesIn = (records: Sale[], from: number, to: number) =>
  records.filter((r) => isSale(r) && r.at >= from && r.at < to).length

/** Sum of amounts (refunds included) in [from, to). */
const sumIn = (records: Sale[], from: number, to: number) =>
  records.filter((r) => r.at >= from && r.at < to).reduce((sum, r) => sum + r.amount, 0)

/**
 * Sum and number of sales in [from, to), where the last hour, when `to` cuts it, counts for the part of
 * it before `to` (its sum and count times that fraction): "up to the same clock time".
 */
function upTo(records: Sale[], from: number, to: number) {
  const whole = startOfHour(to)
  const fraction = (to - whole) / hourMs
  return {
    sum: sumIn(records, from, whole) + fraction * sumIn(records, whole, whole + hourMs),
    count: salesIn(records, from, whole) + fraction * salesIn(records, whole, whole + hourMs),
  }
}

/**
 * The quiet-store notice at `now`, or null. The span runs from the last sale (or the start of today,
 * whichever is later) to now; the expected sales are, for each hour of the span (the part of it inside
 * the span), the average number of sales of that hour on the same weekday of the previous 8 weeks,
 * counting only weeks on or after the store's first day; fewer than 4 such weeks: nothing said.
 * At least 12 expected and none came (decision 125): `<whole hours, at least 1>시간째 결제 없음 · 평소 이 시간 약 <rounded>건`.
 */
export function quietNotice(records: Sale[], now: number): string | null {
  const sales = records.filter(isSale).map((r) => r.at)
  if (sales.length === 0) return null
  const today = startOfDay(now)
  const last = sales.reduce((a, b) => Math.max(a, b))
  const firstDay = startOfDay(sales.reduce((a, b) => Math.min(a, b)))
  const from = Math.max(last, today)
  if (from >= now) return null
  const weeks = [1, 2, 3, 4, 5, 6, 7, 8].filter((back) => today - back * weekMs >= firstDay)
  if (weeks.length < 4) return null
  let expected = 0
  for (let hour = startOfHour(from); hour < now; hour += hourMs) {
    const inSpan = (Math.min(hour + hourMs, now) - Math.max(hour, from)) / hourMs
    const usual =
      weeks.reduce(
        (sum, back) => sum + salesIn(records, hour - back * weekMs, hour - back * weekMs + hourMs),
        0,
      ) / weeks.length
    expected += usual * inSpan
  }
  if (expected < 12) return null
  const hours = Math.max(1, Math.floor((now - from) / hourMs))
  return `${hours}시간째 결제 없음 · 평소 이 시간 약 ${Math.round(expected)}건`
}

/** `▲ 12%`, `▼ 3%`, `0%`, or `—` with nothing to compare (no previous figure, or not above zero). */
function changeSign(current: number, previous: number | null) {
  if (previous === null || !(previous > 0)) return '—'
  const percent = (current / previous - 1) * 100
  if (Math.abs(percent) < 0.5) return '0%'
  return `${percent > 0 ? '▲' : '▼'} ${Math.abs(percent).toFixed(0)}%`
}

const clock = new Intl.DateTimeFormat('ko-KR', {
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'Asia/Seoul',
})

export interface RowFigures {
  today: string
  todayCount: string
  todayChange: string
  month: string
  monthChange: string
  lastSale: string
}

/**
 * A row of the overview at `now`:
 * - today: the current UTC day's sum and number of sales, the current hour whole (it holds sales up to now);
 * - its change against the average of the same weekday of each of the previous 4 weeks from 00:00 up
 *   to the same clock time (the hour it is cut in prorated);
 * - the month so far (the current hour whole), and its change against the month before from its start
 *   up to the same elapsed time, never past its end (the cut hour prorated);
 * - the time (Korea) of the year's last sale, `—` without one.
 */
export function overviewRow(records: Sale[], now: number): RowFigures {
  const today = startOfDay(now)
  const endOfHour = startOfHour(now) + hourMs
  const todaySum = sumIn(records, today, endOfHour)
  const todayCount = salesIn(records, today, endOfHour)
  let usualSum = 0
  let usualCount = 0
  for (let back = 1; back <= 4; back++) {
    const totals = upTo(records, today - back * weekMs, now - back * weekMs)
    usualSum += totals.sum
    usualCount += totals.count
  }
  const usual = usualSum !== 0 || usualCount !== 0 ? usualSum / 4 : null
  const date = new Date(now)
  const monthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
  const previousStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1)
  const monthSum = sumIn(records, monthStart, endOfHour)
  const previous = upTo(records, previousStart, Math.min(previousStart + (now - monthStart), monthStart))
  const previousMonth = previous.sum !== 0 || previous.count !== 0 ? previous.sum : null
  const yearStart = Date.UTC(date.getUTCFullYear(), 0, 1)
  const yearSales = records.filter((r) => isSale(r) && r.at >= yearStart).map((r) => r.at)
  return {
    today: won(todaySum),
    todayCount: `${new Intl.NumberFormat('ko-KR').format(todayCount)}건`,
    todayChange: changeSign(todaySum, usual),
    month: won(monthSum),
    monthChange: changeSign(monthSum, previousMonth),
    lastSale: yearSales.length === 0 ? '—' : clock.format(yearSales.reduce((a, b) => Math.max(a, b))),
  }
}

/** The same figures as a row of the overview shows them. */
export async function shownRow(page: Page, storeId: number): Promise<RowFigures> {
  const row = page.getByTestId(`store-row-${storeId}`)
  const parts = row.locator('.store-row-figures > span')
  const changes = row.locator('.change > [aria-hidden="true"]')
  const text = async (locator: ReturnType<Page['locator']>) => ((await locator.textContent()) ?? '').trim()
  return {
    today: await text(row.getByTestId('store-today')),
    todayCount: (await text(parts.nth(0))).match(/· ([\d,]+건)/)?.[1] ?? '',
    todayChange: await text(changes.nth(0)),
    month: await text(row.getByTestId('store-month')),
    monthChange: await text(changes.nth(1)),
    lastSale: (await text(parts.nth(2))).replace(/^마지막 결제\s*/, ''),
  }
}
