import { expect, test } from './fixtures.ts'
import { figuresSettled, shot, signIn } from './helpers.ts'

// Pictures of the screens for a person to look at: test-results/screenshots/.
for (const width of [360, 1280]) {
  test(`login and sales screens at ${width} px fit the width`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 })
    await page.goto('/login')
    await expect(page.getByRole('button', { name: 'get verification code' })).toBeVisible()
    await page.screenshot({ path: shot(`login-${width}.png`), fullPage: true })
    await signIn(page)
    await figuresSettled(page)
    // The enriched screen: last year's comparison in (fetched after the first figures), today's line,
    // the estimate, the charts' legends and the hours grid.
    await expect(page.locator('.summary-box').nth(0).locator('.change [aria-hidden="true"]')).not.toHaveText(
      '—',
    )
    for (const testId of ['today', 'month-projection']) await expect(page.getByTestId(testId)).toBeVisible()
    await expect(page.locator('.chart-legend')).toHaveCount(2)
    await expect(page.locator('.hours-grid')).toBeVisible()
    await page.waitForTimeout(300)
    await page.screenshot({ path: shot(`sales-${width}.png`), fullPage: true })
    // Nothing sticks out sideways, and the header's three parts do not overlap.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    // Nothing hidden (the charts' text tables) makes the page scroll on past the footer.
    const below = await page.evaluate(() => {
      const footer = document.querySelector('.app-footer')?.getBoundingClientRect().bottom ?? 0
      return document.documentElement.scrollHeight - Math.max(window.innerHeight, footer + window.scrollY)
    })
    expect(below).toBeLessThan(1)
    const [store, logo, actions] = await Promise.all(
      ['.store-current', '.app-logo', '.header-actions'].map((selector) =>
        page.locator(selector).boundingBox(),
      ),
    )
    if (!store || !logo || !actions) throw new Error('header parts missing')
    expect(store.x + store.width).toBeLessThanOrEqual(logo.x)
    expect(logo.x + logo.width).toBeLessThanOrEqual(actions.x)
    // On a phone the header links every store at a glance; elsewhere the store list's first item does.
    const allStores = page.locator('header').getByRole('link', { name: '전체 매장' })
    if (width < 720) await expect(allStores).toBeVisible()
    else await expect(allStores).toBeHidden()
    // No line of the summary boxes, legends, hours or tools sticks out of its own box.
    const clipped = await page.evaluate(() =>
      [
        ...document.querySelectorAll(
          '.summary-line, .chart-legend, .hours-busiest, .hours-grid, .sales-tools',
        ),
      ]
        .filter((element) => element.scrollWidth > element.clientWidth)
        .map((element) => `${element.className}: ${element.textContent}`),
    )
    expect(clipped).toEqual([])
    // A change (`▲ 14%`) is never broken over two lines.
    for (const sign of await page.locator('.change [aria-hidden="true"]').all())
      expect(await sign.evaluate((element) => element.getClientRects().length)).toBe(1)

    // The alerts screen, from the header's menu.
    await page.getByRole('button', { name: '메뉴' }).click()
    await page.getByRole('link', { name: '알림' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toContainText('알림')
    await page.waitForTimeout(300)
    await page.screenshot({ path: shot(`alerts-${width}.png`), fullPage: true })
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0)
  })
}
