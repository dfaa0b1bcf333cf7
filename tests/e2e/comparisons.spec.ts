import { readFile } from 'node:fs/promises'
import type { APIRequestContext, BrowserContext, Locator, Page } from '@playwright/test'
import * as reference from './comparisons-reference.ts'
import { expect, test } from './fixtures.ts'
import {
  figuresSettled,
  navigatorLabel,
  persisted,
  persistedCache,
  serverRecords,
  serviceWorkerReady,
  signIn,
  won,
} from './helpers.ts'

const count = new Intl.NumberFormat('ko-KR')

// The sales screen's counts, averages and export, against the records the API gives for the store.
test("the year's and month's sales counts, average sales and the month's CSV equal the server records", async ({
  page,
  context,
  request,
}) => {
  await signIn(page)
  await figuresSettled(page)
  const now = new Date()
  const year = now.getUTCFullYear()
  const month = now.getUTCMonth() + 1
  const usages = await serverRecords(request, context, 1, year)
  const sales = usages.filter(({ amount }) => amount > 0)
  const ofMonth = usages.filter(({ createdAt }) => new Date(createdAt).getUTCMonth() + 1 === month)
  const salesOfMonth = ofMonth.filter(({ amount }) => amount > 0)
  const sum = (list: { amount: number }[]) => list.reduce((total, { amount }) => total + amount, 0)

  const yearBox = page.locator('.summary-box').nth(0)
  const monthBox = page.locator('.summary-box').nth(1)
  await expect(yearBox).toContainText(`${count.format(sales.length)}건`)
  await expect(yearBox).toContainText(`평균 ${won(Math.round(sum(usages) / sales.length))}`)
  await expect(monthBox).toContainText(`${count.format(salesOfMonth.length)}건`)
  await expect(monthBox).toContainText(`평균 ${won(Math.round(sum(ofMonth) / salesOfMonth.length))}`)
  // Today's line, with its change in words for screen readers.
  await expect(page.getByTestId('today')).toContainText('평소 같은 시각 대비')

  // The month's CSV: one row per UTC day up to today, amount and number of sales.
  const downloading = page.waitForEvent('download')
  await page.getByRole('button', { name: `${month}월 CSV 내려받기` }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toBe(`행복빨래방_역삼점_${year}-${String(month).padStart(2, '0')}.csv`)
  const text = await readFile(await download.path(), 'utf8')
  expect(text.startsWith('\uFEFF')).toBe(true)
  const rows = text.slice(1).trim().split('\r\n')
  expect(rows[0]).toBe('날짜,매출(원),결제 건수')
  expect(rows).toHaveLength(1 + now.getUTCDate())
  for (const row of rows.slice(1)) {
    const [date = '', amount, sold] = row.split(',')
    const ofDay = ofMonth.filter(({ createdAt }) => createdAt.startsWith(date))
    expect(`${date},${amount},${sold}`).toBe(
      `${date},${sum(ofDay)},${ofDay.filter(({ amount: value }) => value > 0).length}`,
    )
  }
})

// ---- The comparisons, charts and hours against a reference computed from the API's records --------
//
// The page computes its figures with `new Date()` when it renders; the test cannot read that instant,
// but it lies between the moment before the screen is loaded and the moment after it is read. Every
// figure is therefore checked against the reference taken over that interval: a percentage must be one
// the reference gives at some instant in it (it moves continuously and monotonically with time within
// a UTC day, as the earlier period's cut hour is prorated), and the month-end estimate must lie between
// the reference at its two ends (it only falls as the rest of today shrinks). A load that straddles a
// UTC midnight, where "today" itself changes, is repeated once.

const dayMs = 86_400_000
const startOfDay = (ms: number) => Math.floor(ms / dayMs) * dayMs
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()
const counted = (n: number) => `${count.format(n)}건`

/** Everything the enriched screen shows that the comparisons define, read in one go. */
async function readScreen(page: Page) {
  const change = async (locator: Locator) => {
    const sign = (await locator.locator('[aria-hidden="true"]').textContent()) ?? ''
    // Its colour says what its arrow says, and nothing when there is none (`0.0%`, `—`).
    const direction = sign.startsWith('▲') ? ' is-up' : sign.startsWith('▼') ? ' is-down' : ''
    expect(await locator.getAttribute('class')).toBe(`change${direction}`)
    return { sign, words: (await locator.locator('.visually-hidden').textContent()) ?? '' }
  }
  const rows = (table: Locator) =>
    table.evaluate((element) =>
      [...(element as HTMLTableElement).rows].map((row) =>
        [...row.cells].map((cell) => cell.textContent ?? ''),
      ),
    )
  const boxes = page.locator('.summary-box')
  const todayLine = page.getByTestId('today')
  const projection = page.getByTestId('month-projection')
  return {
    year: await change(boxes.nth(0).locator('.change')),
    month: await change(boxes.nth(1).locator('.summary-line').first().locator('.change')),
    today: (await todayLine.count()) ? await change(todayLine.locator('.change')) : null,
    todayText: (await todayLine.count()) ? await todayLine.textContent() : null,
    projection: (await projection.count()) ? await projection.textContent() : null,
    dailyTable: await rows(page.getByRole('figure', { name: '이번 달 매출' }).locator('table')),
    dailyLegend: await page
      .getByRole('figure', { name: '이번 달 매출' })
      .locator('.chart-legend')
      .textContent(),
    yearlyTable: await rows(page.getByRole('figure', { name: '올해 매출' }).locator('table')),
    yearlyLegend: await page
      .getByRole('figure', { name: '올해 매출' })
      .locator('.chart-legend')
      .textContent(),
    busiest: await page.locator('.hours-busiest').textContent(),
    hoursTable: await rows(page.locator('section.hours table')),
  }
}
type Screen = Awaited<ReturnType<typeof readScreen>>

/**
 * Loads the screen with `load`, waits for its figures (and, when told, last year's comparison), reads
 * it, and returns what it showed with the interval its `now` lies in.
 */
async function loadAndRead(page: Page, load: () => Promise<unknown>, { lastYear = true } = {}) {
  for (let attempt = 0; ; attempt++) {
    const from = Date.now()
    await load()
    await figuresSettled(page)
    await expect(page.locator('.hours-grid')).toBeVisible()
    if (lastYear)
      await expect(
        page.locator('.summary-box').nth(0).locator('.change [aria-hidden="true"]'),
      ).not.toHaveText('—')
    const shown = await readScreen(page)
    const to = Date.now()
    if (startOfDay(from) === startOfDay(to) || attempt > 0) return { shown, from, to }
  }
}

/** The texts a reference gives at instants spread over [from, to]. */
function textsOver(from: number, to: number, text: (now: number) => string) {
  const texts = new Set<string>()
  for (let step = 0; step <= 20; step++) texts.add(text(from + ((to - from) * step) / 20))
  return [...texts]
}

/**
 * Checks the shown screen against the reference from `sales` (this year's and, unless `lastYearKnown`
 * is false, last year's records), for the current month.
 */
function checkScreen(
  shown: Screen,
  { from, to }: { from: number; to: number },
  sales: reference.Sale[],
  { timeZone, lastYearKnown = true }: { timeZone: string; lastYearKnown?: boolean },
) {
  const now = new Date(from)
  const year = now.getUTCFullYear()
  const month = now.getUTCMonth() + 1
  const today = startOfDay(from)
  const sumOf = (start: number, end: number) => reference.weighted(sales, start, end)

  // The year box: against the same part of last year, or `—` when last year is not known.
  const yearTexts = lastYearKnown
    ? textsOver(from, to, (at) => JSON.stringify(reference.changeText(reference.yearChange(sales, at), 1)))
    : [JSON.stringify({ sign: '—', words: '비교할 자료 없음' })]
  expect(yearTexts).toContain(
    JSON.stringify({ sign: shown.year.sign, words: shown.year.words.replace('작년 같은 기간보다 ', '') }),
  )
  expect(shown.year.words).toMatch(/^작년 같은 기간보다 /)

  // The month box: against the month before up to the same elapsed time (`—` for January without last year).
  const monthTexts =
    lastYearKnown || month > 1
      ? textsOver(from, to, (at) => JSON.stringify(reference.changeText(reference.monthChange(sales, at), 1)))
      : [JSON.stringify({ sign: '—', words: '비교할 자료 없음' })]
  expect(monthTexts).toContain(
    JSON.stringify({ sign: shown.month.sign, words: shown.month.words.replace('지난달 같은 기간보다 ', '') }),
  )
  expect(shown.month.words).toMatch(/^지난달 같은 기간보다 /)

  // Today's line: sum and count so far, the change against the usual, the last sale on the device's clock.
  const current = reference.today(sales, from)
  const lastSale = Math.max(...sales.filter(({ at }) => at >= Date.UTC(year, 0, 1)).map(({ at }) => at))
  const clock = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  })
  expect(shown.todayText).toContain(`오늘 ${won(current.sum)} · ${counted(current.count)}`)
  expect(shown.todayText).toContain(`마지막 결제 ${clock.format(lastSale)}`)
  // Without last year, the usual day (4 weeks back) and the estimate (8 weeks back) are defined from
  // this year alone only when those weeks lie in this year; early in January they are not checked here.
  const usualKnown = lastYearKnown || today - 28 * dayMs >= Date.UTC(year, 0, 1)
  const estimateKnown = lastYearKnown || today - 56 * dayMs >= Date.UTC(year, 0, 1)
  if (usualKnown) {
    const todayTexts = textsOver(from, to, (at) =>
      JSON.stringify(reference.changeText(reference.today(sales, at).change, 0)),
    )
    expect(todayTexts).toContain(
      JSON.stringify({
        sign: shown.today?.sign,
        words: shown.today?.words.replace('평소 같은 요일 같은 시각보다 ', ''),
      }),
    )
    expect(shown.todayText).toContain(`평소 같은 시각 대비 ${shown.today?.sign}`)
  }
  if (estimateKnown) {
    const estimate = Number(shown.projection?.match(/^예상 ([\d,]+)원$/)?.[1]?.replaceAll(',', ''))
    // It only falls with time within a UTC day: between the reference at the end and at the start.
    expect(estimate).toBeGreaterThanOrEqual(Math.round(reference.projection(sales, to)) - 1)
    expect(estimate).toBeLessThanOrEqual(Math.round(reference.projection(sales, from)) + 1)
  }

  // The daily chart's text alternative: real numbers up to today (zero on a day without sales), `—`
  // after it; the month before by the same day number, named in the header and the legend.
  const previousMonth = month === 1 ? 12 : month - 1
  const previousYear = month === 1 ? year - 1 : year
  expect(shown.dailyLegend).toBe(`${month}월${previousMonth}월`)
  expect(shown.dailyTable[0]).toEqual([
    '날짜',
    `${month}월 매출(원)`,
    '결제 건수',
    `${previousMonth}월 매출(원)`,
  ])
  const dayRows = Array.from({ length: daysIn(year, month) }, (_, index) => {
    const start = Date.UTC(year, month - 1, index + 1)
    const figures = sumOf(start, start + dayMs)
    const before = Date.UTC(previousYear, previousMonth - 1, index + 1)
    const comparison =
      index + 1 > daysIn(previousYear, previousMonth) || (!lastYearKnown && month === 1)
        ? '—'
        : won(sumOf(before, before + dayMs).sum)
    return start > today
      ? [`${index + 1}일`, '—', '—', comparison]
      : [`${index + 1}일`, won(figures.sum), counted(figures.count), comparison]
  })
  expect(shown.dailyTable.slice(1)).toEqual(dayRows)

  // The yearly chart's: months up to this one, `—` after it; last year's months as the comparison.
  // This month is the month in progress: `(진행 중) sum · 예상 estimate`, the estimate (when known) the
  // month box's within the same bounds, and `예상` in the legend with it.
  const inProgress = shown.yearlyTable[month]?.[1]?.match(/^\(진행 중\) ([\d,]+원)(?: · 예상 ([\d,]+)원)?$/)
  const chartEstimate = inProgress?.[2] === undefined ? null : Number(inProgress[2].replaceAll(',', ''))
  if (estimateKnown) {
    expect(chartEstimate).toBeGreaterThanOrEqual(Math.round(reference.projection(sales, to)) - 1)
    expect(chartEstimate).toBeLessThanOrEqual(Math.round(reference.projection(sales, from)) + 1)
  }
  expect(shown.yearlyLegend).toBe(`${year}년${year - 1}년${chartEstimate === null ? '' : '예상'}`)
  expect(shown.yearlyTable[0]).toEqual(['월', `${year}년 매출(원)`, '결제 건수', `${year - 1}년 매출(원)`])
  const monthRows = Array.from({ length: 12 }, (_, index) => {
    const figures = sumOf(Date.UTC(year, index, 1), Date.UTC(year, index + 1, 1))
    const comparison = lastYearKnown
      ? won(sumOf(Date.UTC(year - 1, index, 1), Date.UTC(year - 1, index + 1, 1)).sum)
      : '—'
    const sum =
      index + 1 === month
        ? `(진행 중) ${won(figures.sum)}${chartEstimate === null ? '' : ` · 예상 ${won(chartEstimate)}`}`
        : won(figures.sum)
    return index + 1 > month
      ? [`${index + 1}월`, '—', '—', comparison]
      : [`${index + 1}월`, sum, counted(figures.count), comparison]
  })
  expect(shown.yearlyTable.slice(1)).toEqual(monthRows)

  // The hours: weekday × hour of the device's clock over the UTC month, the busiest two hours in words.
  const hours = reference.hours(sales, year, month, timeZone)
  expect(shown.busiest).toBe(hours.busiest)
  expect(shown.hoursTable).toEqual([
    ['요일', ...Array.from({ length: 24 }, (_, hour) => `${hour}시`)],
    ...hours.grid.map((row, weekday) => [hours.weekdays[weekday], ...row.map((sum) => won(sum))]),
  ])
}

/** The API's records of this year and last year, as sales, and the device's time zone. */
async function recordsAndZone(page: Page, context: BrowserContext, request: APIRequestContext, year: number) {
  const records = [
    ...(await serverRecords(request, context, 1, year - 1)),
    ...(await serverRecords(request, context, 1, year)),
  ]
  const timeZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
  return { sales: reference.toSales(records), timeZone }
}

test('the changes, estimate, today, charts and hours equal a reference from the server records, online and offline', async ({
  page,
  context,
  request,
}) => {
  const year = new Date().getUTCFullYear()
  const online = await loadAndRead(page, () => signIn(page))
  const { sales, timeZone } = await recordsAndZone(page, context, request, year)
  await expect(page.locator('.hours-grid .hours-cell')).toHaveCount(7 * 24)
  checkScreen(online.shown, online, sales, { timeZone })

  // Both years kept on the device: offline, a reload shows all of it again, still equal to the reference.
  await serviceWorkerReady(page)
  await persisted(page, 1, year)
  await persisted(page, 1, year - 1)
  await context.setOffline(true)
  const offline = await loadAndRead(page, () => page.reload())
  await expect(page.getByText(/^오프라인 · /)).toBeVisible()
  checkScreen(offline.shown, offline, sales, { timeZone })
})

test("offline without last year's answer (its request lost), the comparisons needing it read — and the rest stays right", async ({
  page,
  context,
  request,
}) => {
  const year = new Date().getUTCFullYear()
  // A lost line for last year's figures only: the request fails, nothing answers in the server's place.
  await context.route(new RegExp(`/api/v0/store/1/usage\\?year=${year - 1}$`), (route) => route.abort())
  const lost = page.waitForEvent('requestfailed', (r) => r.url().includes(`/usage?year=${year - 1}`))
  await signIn(page)
  await figuresSettled(page)
  await lost
  await serviceWorkerReady(page)
  await persisted(page, 1, year)
  const { sales, timeZone } = await recordsAndZone(page, context, request, year)
  expect(
    (await persistedCache(page))?.clientState.queries.some(
      (q) => JSON.stringify(q.queryKey) === JSON.stringify(['usage', 1, year - 1]) && q.state.data,
    ),
  ).toBeFalsy()

  await context.setOffline(true)
  const offline = await loadAndRead(page, () => page.reload(), { lastYear: false })
  await expect(page.getByText(/^오프라인 · /)).toBeVisible()
  checkScreen(offline.shown, offline, sales, { timeZone, lastYearKnown: false })

  // January needs last December: its month comparison and comparison line read `—`, never a number.
  await navigatorLabel(page).click()
  await page.getByRole('button', { name: '1월', exact: true }).click()
  await expect(navigatorLabel(page)).toHaveText(`${year}년 1월`)
  const january = await readScreen(page)
  expect(january.month).toEqual({ sign: '—', words: '지난달 같은 기간보다 비교할 자료 없음' })
  expect(january.year).toEqual({ sign: '—', words: '작년 같은 기간보다 비교할 자료 없음' })
  expect(january.dailyTable.slice(1).map((row) => row[3])).toEqual(Array(31).fill('—'))
  expect(january.yearlyTable.slice(1).map((row) => row[3])).toEqual(Array(12).fill('—'))
})
