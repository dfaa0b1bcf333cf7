import type { Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import {
  cookiesBesideKnownDevice,
  figuresSettled,
  navigatorLabel,
  owner,
  persisted,
  persistedCache,
  recordDialogs,
  serviceWorkerReady,
  shot,
  shownTotals,
  signIn,
} from './helpers.ts'

const offlineNotice = (page: Page) => page.getByText(/^오프라인 · \d{1,2}월 \d{1,2}일 \d\d:\d\d 기준$/)
const unavailable = (page: Page) =>
  page.getByRole('heading', { name: '오프라인에서는 볼 수 없는 기간입니다' })

/** Signs in, waits for the figures, the service worker and the copy kept on the device. */
async function signedInWithOfflineCopy(page: Page) {
  await signIn(page)
  await figuresSettled(page)
  const year = Number((await navigatorLabel(page).textContent())?.slice(0, 4))
  await serviceWorkerReady(page)
  await persisted(page, 1, year)
  return year
}

test('offline, a reload shows the same figures with the offline notice: no alert, no logout', async ({
  page,
  context,
}) => {
  const dialogs = recordDialogs(page)
  await signedInWithOfflineCopy(page)
  const online = await shownTotals(page)
  const label = await navigatorLabel(page).textContent()
  await expect(offlineNotice(page)).toBeHidden()
  // What the device keeps is buckets per (store, year): no raw records, no tokens.
  const kept = await persistedCache(page)
  // With the ETag of the answer they were made from, for the app's own revalidation.
  const usage = kept?.clientState.queries.find((q) => q.queryKey[0] === 'usage')?.state.data
  expect(usage).toMatchObject({
    buckets: { months: expect.any(Array), days: expect.any(Array), total: expect.any(Number) },
    etag: expect.stringMatching(/^W\/"/),
  })
  const keptText = JSON.stringify(kept)
  expect(keptText).not.toContain('createdAt')
  for (const cookie of await context.cookies()) expect(keptText).not.toContain(cookie.value)

  await context.setOffline(true)
  await page.reload()
  await expect(page).toHaveURL(/\/$/)
  await expect(navigatorLabel(page)).toHaveText(label ?? '')
  await expect(offlineNotice(page)).toBeVisible()
  expect(await shownTotals(page)).toEqual(online)
  await page.screenshot({ path: shot('sales-offline.png') })
  await expect(page.getByRole('button', { name: /매장: 행복빨래방 역삼점/ })).toBeVisible()
  expect(dialogs).toEqual([])
  expect((await context.cookies()).map((c) => c.name).sort()).toEqual([
    'accessToken',
    'knownDevice',
    'refreshRetryKey',
    'refreshToken',
    'signInId',
  ])
})

test('offline, a year never loaded is "not available offline"; back online it loads by itself', async ({
  page,
  context,
}) => {
  const year = await signedInWithOfflineCopy(page)
  await context.setOffline(true)
  await page.reload()
  await expect(offlineNotice(page)).toBeVisible()

  await navigatorLabel(page).click()
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '6월', exact: true }).click()
  await expect(navigatorLabel(page)).toHaveText(`${year - 3}년 6월`)
  await expect(unavailable(page)).toBeVisible()
  await expect(page.getByTestId('year-total')).toBeHidden()
  await page.screenshot({ path: shot('sales-unavailable-offline.png') })

  const fetched = page.waitForRequest((r) => r.url().includes(`/usage?year=${year - 3}`))
  await context.setOffline(false)
  await fetched
  await expect(unavailable(page)).toBeHidden()
  await figuresSettled(page)
  await expect(page.getByTestId('year-total')).toHaveText('0원')
  await expect(offlineNotice(page)).toBeHidden()
})

test('every store and year looked at stays available offline, not only the last one', async ({
  page,
  context,
}) => {
  const year = await signedInWithOfflineCopy(page)
  const thisYear = await shownTotals(page)
  await navigatorLabel(page).click()
  await page.getByRole('button', { name: '이전 해' }).click()
  await page.getByRole('button', { name: '6월', exact: true }).click()
  await figuresSettled(page)
  const lastYear = await shownTotals(page)
  await persisted(page, 1, year - 1)
  await persisted(page, 1, year)

  await context.setOffline(true)
  await page.reload()
  await expect(offlineNotice(page)).toBeVisible()
  expect(await shownTotals(page)).toEqual(lastYear)
  await navigatorLabel(page).click()
  await page.getByRole('button', { name: '다음 해' }).click()
  await page.getByRole('button', { name: '6월', exact: true }).click()
  await expect(navigatorLabel(page)).toHaveText(`${year}년 6월`)
  await expect(page.getByTestId('year-total')).toHaveText(thisYear.year)
  await expect(unavailable(page)).toBeHidden()
})

test('back online, the notice goes and the figures catch up at once', async ({ page, context }) => {
  const year = await signedInWithOfflineCopy(page)
  await context.setOffline(true)
  await page.reload()
  await expect(offlineNotice(page)).toBeVisible()
  // The year is followed live (docs/product.md §9, decisions 83-88): back online, the live loop asks at
  // once for the changes since the kept revision, rather than the whole year again (the server holds
  // that call while nothing changed, so the ask is what is awaited, not its answer).
  const refetched = page.waitForRequest((r) => r.url().includes(`/store/1/usage/changes?year=${year}&after=`))
  await context.setOffline(false)
  await refetched
  await expect(offlineNotice(page)).toBeHidden()
  await figuresSettled(page)
})

test('logging out offline wipes the device: cookies, stored state, kept figures and cached pictures', async ({
  page,
  context,
}) => {
  const dialogs = recordDialogs(page)
  await signedInWithOfflineCopy(page)
  // Once the service worker controls the page, the store pictures are cached too.
  await page.reload()
  await figuresSettled(page)
  await expect
    .poll(() =>
      page.evaluate(
        async () => (await caches.has('images')) && (await (await caches.open('images')).keys()).length,
      ),
    )
    .toBeGreaterThan(0)

  await context.setOffline(true)
  await page.getByRole('button', { name: 'Logout' }).click()
  await expect(page).toHaveURL(/\/login$/)
  expect(dialogs).toEqual(['Do you want to log out?', 'You have been logged out.'])
  await page.reload()
  await expect(page.getByLabel('휴대폰 번호')).toBeVisible()

  // All but the known-device credential, which stays on purpose (helpers.ts).
  expect(await cookiesBesideKnownDevice(context)).toEqual([])
  const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }))
  expect(storage).not.toContain('usage')
  expect(storage).not.toContain(owner)
  expect(storage).not.toContain('김사장')
  expect(storage).not.toContain('역삼점')
  // The persister may write an empty record after the wipe; it must hold no figures.
  expect((await persistedCache(page))?.clientState.queries ?? []).toEqual([])
  const cached = await page.evaluate(async () => {
    const urls: string[] = []
    for (const name of await caches.keys()) {
      for (const request of await (await caches.open(name)).keys()) urls.push(`${name} ${request.url}`)
    }
    return urls
  })
  expect(cached.length).toBeGreaterThan(0)
  expect(cached.filter((entry) => /\/api\/|\/images\/|^images /.test(entry))).toEqual([])
})
