import type { Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import {
  accessToken,
  figuresSettled,
  persistedCache,
  recordDialogs,
  serverSums,
  serviceWorkerReady,
  shot,
  signIn,
  won,
} from './helpers.ts'
import { overSpan, overviewRow, pageNow, shownRow, storeRecords } from './reference.ts'

// The stores overview (/stores) as the demo owner of three stores, against the server's own records.

const demoStores = [1, 2, 3]
const offlineNotice = /^오프라인 · \d{1,2}월 \d{1,2}일 \d\d:\d\d 기준$/

/**
 * Every store's figures shown, and kept: our server's overview of every store (decision 110), one
 * answer instead of each store's years.
 */
async function overviewLoaded(page: Page, _year: number) {
  await expect(page.getByTestId('store-today')).toHaveCount(demoStores.length)
  await expect
    .poll(async () =>
      (await persistedCache(page))?.clientState.queries.some(
        (q) => JSON.stringify(q.queryKey) === JSON.stringify(['usage', 'overview']),
      ),
    )
    .toBe(true)
}

test('every store at a glance: each column equals the server records, and a row opens its sales', async ({
  page,
  context,
  request,
}) => {
  await signIn(page)
  await figuresSettled(page)
  const from = await pageNow(page)
  // From the store switcher's list.
  await page.getByRole('button', { name: /매장 바꾸기/ }).click()
  await page.getByRole('link', { name: '전체 매장' }).click()
  await expect(page).toHaveURL(/\/stores$/)
  await expect(page.getByRole('heading', { level: 1, name: '전체 매장' })).toBeVisible()
  await expect(page).toHaveTitle('전체 매장 · 빨래방 매출')

  const now = new Date(from)
  const month = now.getUTCMonth()
  await overviewLoaded(page, now.getUTCFullYear())
  let total = 0
  for (const storeId of demoStores) {
    const sums = await serverSums(request, context, storeId, now.getUTCFullYear())
    total += sums.months[month] ?? 0
    await expect(page.getByTestId(`store-row-${storeId}`).getByTestId('store-month')).toHaveText(
      won(sums.months[month] ?? 0),
    )
  }
  await expect(page.getByTestId('total-month')).toHaveText(won(total))
  // Every store answered: the totals are all the latest, and say nothing more.
  await expect(page.getByTestId('total-note')).toHaveCount(0)

  // Today's sum, count and change, the month's change and the last sale: as the page rendered them at
  // some moment since it opened, so one of what the records say at each second of that span (an hour
  // or a day may turn within it).
  for (const storeId of demoStores) {
    const records = await storeRecords(request, context, storeId, from)
    const shown = await shownRow(page, storeId)
    const to = await pageNow(page)
    expect(overSpan(from, to, (at) => overviewRow(records, at))).toContainEqual(shown)
  }

  await page.screenshot({ path: shot('stores-1280.png'), fullPage: true })
  await page.setViewportSize({ width: 360, height: 800 })
  await page.screenshot({ path: shot('stores-360.png'), fullPage: true })

  // Choosing a row opens that store's sales.
  const second = page.getByTestId('store-row-2')
  await expect(second).toHaveAccessibleName(/뽀송 코인세탁 선릉점/)
  await second.click()
  await expect(page.getByRole('button', { name: /매장: 뽀송 코인세탁 선릉점/ })).toBeVisible()
  await figuresSettled(page)
})

test('keyboard: Tab reaches every row in order, each named by what it shows, and Enter opens that store', async ({
  page,
}) => {
  await signIn(page)
  await figuresSettled(page)
  await page.goto('/stores')
  await overviewLoaded(page, new Date(await pageNow(page)).getUTCFullYear())
  const links = page.getByRole('list', { name: '매장별 오늘 매출' }).getByRole('link')
  await expect(links).toHaveCount(demoStores.length)
  // In the order shown (a store gone quiet comes first).
  const rows: { id: string; name: string }[] = []
  for (const link of await links.all()) {
    rows.push({
      id: (await link.getAttribute('data-testid')) ?? '',
      name: (await link.locator('.store-row-name').textContent()) ?? '',
    })
  }

  for (let presses = 0; presses < 30; presses++) {
    await page.keyboard.press('Tab')
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))
    if (focused?.startsWith('store-row-')) break
  }
  for (const [index, { id, name }] of rows.entries()) {
    if (index > 0) await page.keyboard.press('Tab')
    const link = page.getByTestId(id)
    await expect(link).toBeFocused()
    // The store's name, then what the row says in words (the arrows are hidden from screen readers).
    const change = String.raw`(\d+% (증가|감소)|변동 없음|비교할 자료 없음)`
    await expect(link).toHaveAccessibleName(
      new RegExp(
        `^${name} (\\d+시간째 결제 없음 · 평소 이 시간 약 \\d+건 )?오늘 [\\d,]+원 · [\\d,]+건 평소 같은 시각보다 ${change} ` +
          `\\d{1,2}월 [\\d,]+원 지난달 같은 기간보다 ${change} 마지막 결제 (\\d\\d:\\d\\d|—)$`,
      ),
    )
  }
  const last = rows.at(-1)
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(new RegExp(`[?&]store=${last?.id.replace('store-row-', '')}(&|$)`))
  await expect(page.getByRole('button', { name: `매장: ${last?.name} (매장 바꾸기)` })).toBeVisible()
  await figuresSettled(page)
})

test('offline, the overview shows every store from the figures kept on the device, with the offline notice', async ({
  page,
  context,
}) => {
  await signIn(page)
  await figuresSettled(page)
  await page.goto('/stores')
  await overviewLoaded(page, new Date(await pageNow(page)).getUTCFullYear())
  await serviceWorkerReady(page)
  await expect(page.getByText(offlineNotice)).toBeHidden()
  // Sums, counts and last sales; the changes against the usual move with the clock.
  const figures = async () => {
    const rows = []
    for (const storeId of demoStores) {
      const { today, todayCount, month, lastSale } = await shownRow(page, storeId)
      rows.push({ storeId, today, todayCount, month, lastSale })
    }
    return {
      rows,
      today: await page.getByTestId('total-today').textContent(),
      month: await page.getByTestId('total-month').textContent(),
    }
  }
  const online = await figures()

  await context.setOffline(true)
  await page.reload()
  await expect(page).toHaveURL(/\/stores$/)
  await expect(page.getByText(offlineNotice)).toBeVisible()
  await expect(page.getByTestId('store-today')).toHaveCount(demoStores.length)
  expect(await figures()).toEqual(online)
  // The offline notice speaks for every figure; the totals add nothing of their own.
  await expect(page.getByTestId('total-note')).toHaveCount(0)
  await page.screenshot({ path: shot('stores-offline.png'), fullPage: true })
})

test("a device's sale moves the overview without a reload, through one held overview call and no year", async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(60_000)
  // The logout asks to confirm.
  recordDialogs(page)
  await signIn(page)
  await figuresSettled(page)
  // The sales screen's own live call may still be asked again as its year settles: it is left behind
  // before the overview is opened, so that what is counted below is the overview's alone.
  await page.goto('about:blank')
  // From here on: every call the page makes.
  const asked: string[] = []
  const open = new Set<unknown>()
  page.on('request', (r) => {
    if (!r.url().includes('/api/v0/')) return
    asked.push(new URL(r.url()).pathname + new URL(r.url()).search)
    if (r.url().includes('/stores/overview?after=')) open.add(r)
  })
  page.on('requestfinished', (r) => open.delete(r))
  page.on('requestfailed', (r) => open.delete(r))
  await page.goto('/stores')
  await overviewLoaded(page, 0)
  await expect.poll(() => open.size).toBe(1)
  // A device of store 2, paired through the owner's and the device's calls, sells 4,130 won.
  const storeId = 2
  const added = await request.post(`/api/v0/store/${storeId}/devices`, {
    headers: { authorization: `Bearer ${await accessToken(context)}` },
    data: { name: '전체 매장 시험기' },
  })
  expect(added.status()).toBe(201)
  const { pairingCode } = (await added.json()) as { pairingCode: string }
  const paired = await request.post('/api/v0/device/pair', { data: { code: pairingCode } })
  const { key } = (await paired.json()) as { key: string }
  const row = page.getByTestId(`store-row-${storeId}`).getByTestId('store-today')
  const before = Number(((await row.textContent()) ?? '').replace(/\D/g, ''))
  const total = Number(((await page.getByTestId('total-today').textContent()) ?? '').replace(/\D/g, ''))
  const id = `overview-${Date.now()}`
  const sold = await request.post('/api/v0/device/sales', {
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': id },
    data: { sales: [{ id, createdAt: new Date(Date.now() - 1000).toISOString(), amount: 4130 }] },
  })
  expect(sold.status()).toBe(200)
  const started = Date.now()
  await expect(row).toHaveText(won(before + 4130))
  expect(Date.now() - started).toBeLessThan(5000)
  await expect(page.getByTestId('total-today')).toHaveText(won(total + 4130))
  // One held call at a time for the whole overview; no store's year and no changes call was asked.
  await expect.poll(() => open.size).toBe(1)
  expect(asked.filter((path) => path.includes('/usage'))).toEqual([])
  expect(asked.filter((path) => path.startsWith('/api/v0/stores/overview')).length).toBeGreaterThanOrEqual(2)
  // A logout ends the held call, and nothing is kept.
  await page.getByRole('button', { name: 'Logout' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await expect.poll(() => open.size).toBe(0)
  expect(await persistedCache(page)).toBeNull()
})
