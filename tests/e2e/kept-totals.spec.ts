// On a repeat visit the totals last shown are painted before the app's code has run (a slow phone
// takes about a second to run it), marked as being refreshed; the app's own screen then takes over.
// After a logout nothing of them is left to paint.
import { expect, test } from './fixtures.ts'
import { figuresSettled, persisted, recordDialogs, shownTotals, signIn } from './helpers.ts'

test('the totals last shown are painted before the app runs, then the app takes over; a logout forgets them', async ({
  page,
  context,
  browser,
  baseURL,
}) => {
  await signIn(page)
  await figuresSettled(page)
  const shown = await shownTotals(page)
  const year = new Date().getUTCFullYear()
  await persisted(page, 1, year)

  // The same device, with the app's code never arriving: only the painted totals can show.
  const stalled = await browser.newContext({
    baseURL,
    storageState: await context.storageState(),
    serviceWorkers: 'block',
    locale: 'ko-KR',
    timezoneId: 'Asia/Seoul',
  })
  try {
    const early = await stalled.newPage()
    // What the page's first frame holds: index.html renders nothing before the painter, which follows #root.
    await early.addInitScript(() => {
      requestAnimationFrame(() => {
        const totals = document.querySelectorAll('.kept-totals .summary-total').length
        Object.assign(window, { firstFrameTotals: totals })
      })
    })
    await early.route(/\/assets\/app-[\w-]+\.js$/, (route) => route.abort())
    await early.goto('/')
    await expect(early.locator('#root + script#paint-first + template#painted')).toHaveCount(1)
    await expect(early.locator('head link[rel="expect"][href="#painted"][blocking="render"]')).toHaveCount(1)
    await expect
      .poll(() => early.evaluate(() => (window as unknown as { firstFrameTotals?: number }).firstFrameTotals))
      .toBe(2)
    const painted = early.locator('.kept-totals')
    await expect(painted).toBeVisible()
    await expect(painted.locator('.summary-total')).toHaveText([shown.year, shown.month])
    await expect(painted.getByRole('status')).toHaveText(/^새로 고치는 중 · \d+월 \d+일 \d\d:\d\d 기준$/)
    await expect(painted).toHaveAttribute('aria-label', '행복빨래방 역삼점 매출')
    // index.html's login form is for visitors not signed in: never shown, not even hidden in the page.
    await expect(early.locator('.login-shell')).toHaveCount(0)
  } finally {
    await stalled.close()
  }

  // With the app: its screen replaces them, showing the same totals.
  const again = await context.newPage()
  await again.goto('/')
  await figuresSettled(again)
  await expect(again.locator('.kept-totals')).toHaveCount(0)
  expect(await shownTotals(again)).toEqual(shown)
  await again.close()

  recordDialogs(page)
  await page.getByRole('button', { name: /Logout/ }).click()
  await expect(page).toHaveURL(/\/login$/)
  expect(await page.evaluate(() => localStorage.getItem('laundry-kept-totals'))).toBeNull()
  await page.goto('/')
  await expect(page.getByLabel('휴대폰 번호')).toBeVisible()
  await expect(page.locator('.kept-totals')).toHaveCount(0)
})
