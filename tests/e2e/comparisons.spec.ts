import { readFile } from 'node:fs/promises'
import { expect, test } from './fixtures.ts'
import { figuresSettled, serverRecords, signIn, won } from './helpers.ts'

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
