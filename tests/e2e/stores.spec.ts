import { expect, test } from './fixtures.ts'
import { figuresSettled, serverSums, signIn, won } from './helpers.ts'

// The stores overview (/stores) as the demo owner of three stores, against the server's own records.
test('every store at a glance: the month so far of each equals the server records, and a row opens its sales', async ({
  page,
  context,
  request,
}) => {
  await signIn(page)
  await figuresSettled(page)
  // From the store switcher's list.
  await page.getByRole('button', { name: /매장 바꾸기/ }).click()
  await page.getByRole('link', { name: '전체 매장' }).click()
  await expect(page).toHaveURL(/\/stores$/)
  await expect(page.getByRole('heading', { level: 1, name: '전체 매장' })).toBeVisible()
  await expect(page).toHaveTitle('전체 매장 · 빨래방 매출')

  const now = new Date()
  const month = now.getUTCMonth()
  let total = 0
  for (const storeId of [1, 2, 3]) {
    const sums = await serverSums(request, context, storeId, now.getUTCFullYear())
    total += sums.months[month] ?? 0
    await expect(page.getByTestId(`store-row-${storeId}`).getByTestId('store-month')).toHaveText(
      won(sums.months[month] ?? 0),
    )
  }
  await expect(page.getByTestId('total-month')).toHaveText(won(total))
  await page.screenshot({ path: 'test-results/screenshots/stores-1280.png', fullPage: true })
  await page.setViewportSize({ width: 360, height: 800 })
  await page.screenshot({ path: 'test-results/screenshots/stores-360.png', fullPage: true })

  // Rows are links reached with Tab, named by what they show; choosing one opens that store's sales.
  const second = page.getByTestId('store-row-2')
  await expect(second).toHaveAccessibleName(/뽀송 코인세탁 선릉점/)
  await second.click()
  await expect(page.getByRole('button', { name: /매장: 뽀송 코인세탁 선릉점/ })).toBeVisible()
  await figuresSettled(page)
})
