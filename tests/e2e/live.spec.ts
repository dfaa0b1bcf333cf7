// Live figures (docs/product.md §2.3, decisions 83–88): a sale a device posts shows on the open sales screen and
// the overview without a reload, in two tabs with one live request between them; a hidden tab asks
// nothing; offline, nothing is asked and the figures keep their "as of", and back online they catch up;
// a logout during a held call leaves nothing behind. The device is paired and posts through the real
// calls (as the reference device does, devices.spec.ts) into store 3, today.
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import {
  accessToken,
  figuresSettled,
  persistedCache,
  recordDialogs,
  serverSums,
  signIn,
  won,
} from './helpers.ts'

const storeId = 3

/** Pairs a new device with store 3 through the owner's and the device's calls; its key. */
async function pairDevice(request: APIRequestContext, context: BrowserContext) {
  const added = await request.post(`/api/v0/store/${storeId}/devices`, {
    headers: { authorization: `Bearer ${await accessToken(context)}` },
    data: { name: '실시간 시험기' },
  })
  expect(added.status()).toBe(201)
  const { pairingCode } = (await added.json()) as { pairingCode: string }
  const paired = await request.post('/api/v0/device/pair', { data: { code: pairingCode } })
  expect(paired.status()).toBe(200)
  return ((await paired.json()) as { key: string }).key
}

let saleNumber = 0
/** One sale of `amount` won, now, posted by the device. */
async function sell(request: APIRequestContext, key: string, amount: number) {
  saleNumber += 1
  const id = `live-${Date.now()}-${saleNumber}`
  const answer = await request.post('/api/v0/device/sales', {
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': id },
    data: { sales: [{ id, createdAt: new Date(Date.now() - 1000).toISOString(), amount }] },
  })
  expect(answer.status()).toBe(200)
  expect(((await answer.json()) as { accepted: number }).accepted).toBe(1)
}

/** The changes calls each page has open now, and all it made. */
function watchChanges(page: Page) {
  const open = new Set<unknown>()
  const made: string[] = []
  /** How each call asked (its Accept) and was answered (its Content-Type). */
  const accepts: string[] = []
  const types: string[] = []
  page.on('request', (r) => {
    if (!r.url().includes('/usage/changes')) return
    open.add(r)
    made.push(r.url())
    accepts.push(r.headers().accept ?? '')
  })
  page.on('response', (r) => {
    if (r.url().includes('/usage/changes')) types.push(r.headers()['content-type'] ?? '')
  })
  page.on('requestfinished', (r) => open.delete(r))
  page.on('requestfailed', (r) => open.delete(r))
  return { open: () => open.size, made, accepts, types }
}

const wonOf = (text: string | null) => Number((text ?? '').replace(/\D/g, ''))
const monthTotal = async (page: Page) => wonOf(await page.getByTestId('month-total').textContent())

/** Makes the page say it is hidden (or shown again), as a tab in the background does. */
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate((hidden) => {
    Object.defineProperty(document, 'visibilityState', {
      configurable: true,
      get: () => (hidden ? 'hidden' : 'visible'),
    })
    document.dispatchEvent(new Event('visibilitychange'))
  }, hidden)

test('a device sale reaches open screens live, one request per browser, paused hidden and offline, gone at logout', async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(60_000)
  const first = watchChanges(page)
  recordDialogs(page)
  await signIn(page)
  await figuresSettled(page)
  await page.goto(`/?store=${storeId}`)
  await figuresSettled(page)
  const key = await pairDevice(request, context)

  // Two tabs on the same store-year: one live request between them, and both move with a sale.
  const second = await context.newPage()
  const other = watchChanges(second)
  await second.goto(`/?store=${storeId}`)
  await figuresSettled(second)
  await expect.poll(() => first.open() + other.open()).toBe(1)
  // The month as the server's records have it, which both pages show before the sale (read from the
  // page, it could be a moment behind a change still arriving).
  const at = new Date()
  const before =
    (await serverSums(request, context, storeId, at.getUTCFullYear())).months[at.getUTCMonth()] ?? 0
  await expect(page.getByTestId('month-total')).toHaveText(won(before))
  await expect(second.getByTestId('month-total')).toHaveText(won(before))
  const madeBeforeSale = first.made.length + other.made.length
  const sold = Date.now()
  await sell(request, key, 7010)
  await expect(page.getByTestId('month-total')).toHaveText(won(before + 7010))
  const shownWithin = Date.now() - sold
  await expect(second.getByTestId('month-total')).toHaveText(won(before + 7010))
  expect(shownWithin).toBeLessThan(5000)
  await expect.poll(() => first.open() + other.open()).toBe(1)
  // Offered a stream (decision 133), the live request is one: the sale came as an event of the open
  // answer, which is still open (no new call was needed for it).
  const calls = [...first.accepts, ...other.accepts]
  expect(calls.length).toBeGreaterThan(0)
  for (const accept of calls) expect(accept).toBe('text/event-stream')
  const answered = [...first.types, ...other.types]
  expect(answered.length).toBeGreaterThan(0)
  for (const type of answered) expect(type).toBe('text/event-stream')
  // (A call the first page made before it went to this store may have been cut off unanswered.)
  expect(first.made.length + other.made.length).toBe(madeBeforeSale)

  // The overview of every store follows too (store 3's row moves with its sale).
  await second.close()
  await page.goto('/stores')
  const row = page.getByTestId(`store-row-${storeId}`).getByTestId('store-today')
  await expect(row).not.toHaveText('')
  const today = wonOf(await row.textContent())
  await sell(request, key, 3020)
  await expect(row).toHaveText(won(today + 3020))

  // A hidden tab asks nothing; shown again, it asks at once and catches up.
  await page.goto(`/?store=${storeId}`)
  await figuresSettled(page)
  await expect.poll(() => first.open()).toBe(1)
  // The kept month first, then the sale made while the overview was open, caught up by the live call:
  // the server's month before the tab is hidden.
  const shown =
    (await serverSums(request, context, storeId, at.getUTCFullYear())).months[at.getUTCMonth()] ?? 0
  await expect(page.getByTestId('month-total')).toHaveText(won(shown))
  await setHidden(page, true)
  await expect.poll(() => first.open()).toBe(0)
  const madeHidden = first.made.length
  await sell(request, key, 1100)
  await page.waitForTimeout(1500)
  expect(first.made.length).toBe(madeHidden)
  expect(await monthTotal(page)).toBe(shown)
  await setHidden(page, false)
  await expect(page.getByTestId('month-total')).toHaveText(won(shown + 1100))

  // Offline: nothing is asked, the figures say their "as of"; online again, they catch up at once.
  await context.setOffline(true)
  await expect(page.getByText(/^오프라인 · .* 기준$/)).toBeVisible()
  await expect.poll(() => first.open()).toBe(0)
  const madeOffline = first.made.length
  await sell(request, key, 2200)
  await page.waitForTimeout(1000)
  expect(first.made.length).toBe(madeOffline)
  expect(await monthTotal(page)).toBe(shown + 1100)
  await context.setOffline(false)
  await expect(page.getByTestId('month-total')).toHaveText(won(shown + 3300))

  // A logout during a held call: the call ends, nothing more is asked and nothing is kept.
  await expect.poll(() => first.open()).toBe(1)
  await page.getByRole('button', { name: 'Logout' }).click()
  await expect(page).toHaveURL(/\/login$/)
  await expect.poll(() => first.open()).toBe(0)
  const madeAtLogout = first.made.length
  await sell(request, key, 500)
  await page.waitForTimeout(1500)
  expect(first.made.length).toBe(madeAtLogout)
  expect(await persistedCache(page)).toBeNull()
})
