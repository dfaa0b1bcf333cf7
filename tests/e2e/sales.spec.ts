import type { Page } from '@playwright/test'
import { compactUsageTypeV2, usageAccept } from '../../contract/usage-compact-type.ts'
import { expect, test } from './fixtures.ts'
import {
  figuresSettled,
  navigatorLabel,
  recordDialogs,
  serverSums,
  shownTotals,
  signIn,
  won,
} from './helpers.ts'

async function shownPeriod(page: Page) {
  const [, year, month] = (await navigatorLabel(page).textContent())?.match(/^(\d{4})년 (\d{1,2})월$/) ?? []
  return { year: Number(year), month: Number(month) }
}

test('the totals shown equal the sums of the server records, across months, years and stores', async ({
  page,
  context,
  request,
}) => {
  const dialogs = recordDialogs(page)
  const usageRequests: string[] = []
  page.on('request', (r) => {
    if (r.url().includes('/usage?')) usageRequests.push(new URL(r.url()).pathname + new URL(r.url()).search)
  })
  // The app asks for the compact form and our server answers it (the figures below come from it).
  const usageForms: string[] = []
  page.on('response', async (r) => {
    if (r.url().includes('/usage?') && r.status() === 200)
      usageForms.push(`${await r.request().headerValue('accept')} → ${await r.headerValue('content-type')}`)
  })
  await signIn(page)
  await figuresSettled(page)

  // This month of the first store, selected at sign-in.
  const now = await shownPeriod(page)
  const thisYear = await serverSums(request, context, 1, now.year)
  expect(thisYear.year).toBeGreaterThan(0)
  expect(await shownTotals(page)).toEqual({
    year: won(thisYear.year),
    month: won(thisYear.months[now.month - 1] ?? 0),
  })
  await expect(page.getByRole('heading', { name: `${now.year}년 매출` })).toBeVisible()

  // Stepping back a month within the year fetches nothing: only this year, and last year for the
  // comparisons (asked for once this year's figures are shown), are ever asked for.
  const onlyThisAndLastYear = () =>
    usageRequests.every(
      (url) =>
        url === `/api/v0/store/1/usage?year=${now.year}` ||
        url === `/api/v0/store/1/usage?year=${now.year - 1}`,
    )
  if (now.month > 1) {
    await page.getByRole('button', { name: '이전 달' }).click()
    await expect(navigatorLabel(page)).toHaveText(`${now.year}년 ${now.month - 1}월`)
    expect(await shownTotals(page)).toEqual({
      year: won(thisYear.year),
      month: won(thisYear.months[now.month - 2] ?? 0),
    })
    await page.getByRole('button', { name: '다음 달' }).click()
    expect(onlyThisAndLastYear()).toBe(true)
  }

  // March of last year through the dropdown: a new year (already fetched for the comparisons).
  await navigatorLabel(page).click()
  await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '3월', exact: true }).click()
  await expect(navigatorLabel(page)).toHaveText(`${now.year - 1}년 3월`)
  await figuresSettled(page)
  const lastYear = await serverSums(request, context, 1, now.year - 1)
  expect(lastYear.year).toBeGreaterThan(now.year === 2026 ? 70_000 * 3000 : 0)
  expect(await shownTotals(page)).toEqual({ year: won(lastYear.year), month: won(lastYear.months[2] ?? 0) })
  expect(usageRequests).toContain(`/api/v0/store/1/usage?year=${now.year - 1}`)

  // Another store: its own figures.
  await page.getByRole('button', { name: /매장 바꾸기/ }).click()
  await page.getByRole('button', { name: '뽀송 코인세탁 선릉점', exact: true }).click()
  await expect(page.getByRole('button', { name: /매장: 뽀송 코인세탁 선릉점/ })).toBeVisible()
  await figuresSettled(page)
  const otherStore = await serverSums(request, context, 2, now.year - 1)
  expect(otherStore.year).not.toBe(lastYear.year)
  expect(await shownTotals(page)).toEqual({
    year: won(otherStore.year),
    month: won(otherStore.months[2] ?? 0),
  })
  expect(usageRequests).toContain(`/api/v0/store/2/usage?year=${now.year - 1}`)
  expect(usageForms.length).toBeGreaterThanOrEqual(3)
  expect(new Set(usageForms)).toEqual(new Set([`${usageAccept} → ${compactUsageTypeV2}`]))
  expect(dialogs).toEqual([])
})

test('chart 1 has a point for every calendar day, chart 2 one for each of 12 months, zero-filled', async ({
  page,
}) => {
  await signIn(page)
  await figuresSettled(page)
  await navigatorLabel(page).click()
  await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '2월', exact: true }).click()
  await figuresSettled(page)
  const year = (await shownPeriod(page)).year
  const days = page.getByRole('table', { name: /이번 달 매출/ }).getByRole('row')
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  await expect(days).toHaveCount(1 + (leap ? 29 : 28))
  await expect(days.nth(1).getByRole('rowheader')).toHaveText('1일')
  const months = page.getByRole('table', { name: /올해 매출/ }).getByRole('row')
  await expect(months).toHaveCount(13)
  await expect(months.nth(12).getByRole('rowheader')).toHaveText('12월')

  // A year with no records at all: zeros everywhere, not an error.
  await navigatorLabel(page).click()
  for (let i = 0; i < 5; i++) await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '1월', exact: true }).click()
  await figuresSettled(page)
  expect(await page.getByTestId('year-total').textContent()).toBe('0원')
  await expect(page.getByRole('table', { name: /이번 달 매출/ }).getByRole('row')).toHaveCount(32)
})

test('the charts are 200 px high and show a tooltip 14 px from the cursor', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 })
  await signIn(page)
  await figuresSettled(page)
  const plots = page.locator('.chart-plot canvas')
  await expect(plots).toHaveCount(2)
  for (const canvas of await plots.all()) expect((await canvas.boundingBox())?.height).toBe(200)
  const over = page.locator('.u-over').first()
  const box = await over.boundingBox()
  if (!box) throw new Error('no plot area')
  // Over the month's first day, which has a value whatever today is (a day after today has none: on the
  // first days of a month a point further right showed '—' and the test failed by the date).
  await page.mouse.move(box.x + 2, box.y + 40)
  const tooltip = page.locator('.chart-tooltip').first()
  await expect(tooltip).toBeVisible()
  // The day, its amount and number of sales, and the same day of the month before.
  await expect(tooltip).toHaveText(/^\d+일 [\d,]+원 · [\d,]+건 · \d+월 ([\d,]+원|—)$/)
  const tip = await tooltip.boundingBox()
  expect(tip?.x).toBeCloseTo(box.x + 2 + 14, -0.5)
  expect(tip?.y).toBeCloseTo(box.y + 40 + 14, -0.5)

  // A narrower window and another year: each chart is made anew at the new width, never twice.
  await page.setViewportSize({ width: 360, height: 800 })
  await navigatorLabel(page).click()
  await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '3월', exact: true }).click()
  await figuresSettled(page)
  await expect(plots).toHaveCount(2)
  for (const plot of await page.locator('.chart-plot').all()) {
    const [frame, canvas] = await Promise.all([plot.boundingBox(), plot.locator('canvas').boundingBox()])
    expect(canvas?.width).toBeCloseTo(frame?.width ?? 0, -1)
  }
})

test('a keyboard opens and closes the store list and the month picker, and focus comes back', async ({
  page,
}) => {
  await signIn(page)
  await figuresSettled(page)
  const switcher = page.getByRole('button', { name: /매장 바꾸기/ })
  await switcher.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('list', { name: '매장 목록' })).toBeVisible()
  await expect(page.getByRole('button', { name: '행복빨래방 역삼점', exact: true })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('list', { name: '매장 목록' })).toBeHidden()
  await expect(switcher).toBeFocused()

  const label = navigatorLabel(page)
  await label.focus()
  await page.keyboard.press(' ')
  await expect(page.getByRole('dialog', { name: '연도와 월 선택' })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog')).toBeHidden()
  await expect(label).toBeFocused()

  // A mouse press outside closes the store list.
  await switcher.click()
  await page.getByTestId('year-total').click()
  await expect(page.getByRole('list', { name: '매장 목록' })).toBeHidden()
})

test('the footer states the fee disclaimer and the support contacts', async ({ page }) => {
  await signIn(page)
  const footer = page.getByRole('contentinfo')
  await expect(footer).toContainText('카드사 수수료와 서비스 이용 수수료를 빼기 전 금액')
  await expect(footer.getByRole('link', { name: /^[\d-]+$/ })).toHaveAttribute('href', /^tel:/)
  await expect(footer.getByRole('link', { name: /@/ })).toHaveAttribute('href', /^mailto:/)
})
