// Alerts in Chromium (docs/product.md §12): staff reach the alerts screen from the header's menu; with
// the permission granted the subscription is stored; a push delivered to the service worker (DevTools'
// ServiceWorker.deliverPushMessage) shows a notification with its title and tag, and a click on it
// opens the store's sales screen; logout removes the subscription. Headless Chromium reaches no vendor
// push service, so when pushManager.subscribe() fails the spec stores a subscription through the API.
import { summaryAfterMs, summaryUntilMs } from '../../server/alerts/morning-summary.ts'
import { expect, test } from './fixtures.ts'
import { logMark, readCode, recordDialogs, signIn, staff } from './helpers.ts'

const deadPushService = 'https://127.0.0.1:9'

/** Signs in through the API (not the page), for a token of the user's own. */
async function apiToken(baseURL: string, phone: string) {
  const mark = logMark()
  await fetch(`${baseURL}/api/v0/user/phone`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone }),
  })
  const code = await readCode(phone, mark)
  const signed = await fetch(`${baseURL}/api/v0/user/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone, code }),
  })
  return ((await signed.json()) as { token: { access: string } }).token.access
}

test('alerts: subscription stored, a push shows its notification, a click opens the store, logout removes it', async ({
  page,
  context,
  baseURL,
}) => {
  test.setTimeout(60_000)
  const origin = new URL(baseURL ?? '').origin
  await context.grantPermissions(['notifications'], { origin })
  await signIn(page, staff)
  await expect(page.getByTestId('month-total')).toBeVisible()
  await page.getByRole('button', { name: '메뉴' }).click()
  await expect(page.getByRole('link', { name: '단말기 관리' })).toHaveCount(0)
  await page.getByRole('link', { name: '알림' }).click()
  await expect(page).toHaveURL(/\/alerts$/)
  await expect(page.getByRole('heading', { name: '알림', level: 1 })).toBeVisible()
  await expect(page.getByText('판매 없음').first()).toBeVisible()
  await expect(page.getByTestId('alert-settings')).toHaveCount(1)
  // The list: empty, unless the real server's clock is in the morning summary's hours (09:05–12:00 KST),
  // when it holds yesterday's summary for this user (a minute's margin either side for the evaluation).
  const empty = page.getByText('최근 30일 동안 보낸 알림이 없습니다.')
  const minute = 60_000
  const dayStart = Math.floor(Date.now() / (24 * 60 * minute)) * 24 * 60 * minute
  const sinceDayStart = Date.now() - dayStart
  if (sinceDayStart < summaryAfterMs - minute || sinceDayStart > summaryUntilMs + minute)
    await expect(empty).toBeVisible()
  else await expect(empty.or(page.getByText(/어제 매출/).first())).toBeVisible()

  // Controlled by the service worker (its first load is not), so that a notification's click can move it.
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready
  })
  await page.reload()
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true)

  // 알림 받기: the permission is granted; a real subscription needs the vendor's push service.
  const stored = page.waitForResponse(
    (response) =>
      response.url().endsWith('/api/v0/push/subscription') && response.request().method() === 'PUT',
    { timeout: 10_000 },
  )
  await page.getByRole('button', { name: '알림 받기' }).click()
  const outcome = await Promise.race([
    stored.then((response) => `stored ${response.status()}`),
    page
      .getByRole('alert')
      .filter({ hasText: '알림을 켜지 못했습니다' })
      .waitFor()
      .then(() => 'subscribe failed'),
  ])
  stored.catch(() => undefined)
  test.info().annotations.push({ type: 'pushManager.subscribe()', description: outcome })
  console.log(`pushManager.subscribe() in this Chromium: ${outcome}`)
  if (outcome !== 'stored 204') {
    const endpoint = `${deadPushService}/e2e-${Date.now()}`
    const status = await page.evaluate(async (target) => {
      const access = document.cookie.match(/(?:^|; )accessToken=([^;]+)/)?.[1] ?? ''
      const response = await fetch('/api/v0/push/subscription', {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${decodeURIComponent(access)}`,
        },
        body: JSON.stringify({
          endpoint: target,
          keys: {
            p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
            auth: 'tBHItJI5svbpez7KI4CCXg',
          },
        }),
      })
      return response.status
    }, endpoint)
    expect(status).toBe(204)
  }
  const test202 = await page.evaluate(async () => {
    const access = document.cookie.match(/(?:^|; )accessToken=([^;]+)/)?.[1] ?? ''
    const response = await fetch('/api/v0/push/test', {
      method: 'POST',
      headers: { authorization: `Bearer ${decodeURIComponent(access)}` },
    })
    return { status: response.status, body: await response.json() }
  })
  expect(test202).toEqual({ status: 202, body: { subscriptions: 1 } })

  // A push, as the push service would deliver it, to this origin's service worker.
  const cdp = await context.newCDPSession(page)
  const registrationId = new Promise<string>((resolve) =>
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const ours = registrations.find(
        (registration) => registration.scopeURL === `${origin}/` && !registration.isDeleted,
      )
      if (ours) resolve(ours.registrationId)
    }),
  )
  await cdp.send('ServiceWorker.enable')
  const storeId = await page.evaluate(async () => {
    const access = document.cookie.match(/(?:^|; )accessToken=([^;]+)/)?.[1] ?? ''
    const response = await fetch('/api/v0/user', {
      headers: { authorization: `Bearer ${decodeURIComponent(access)}` },
    })
    return ((await response.json()) as { stores: { id: number }[] }).stores[0]?.id ?? 0
  })
  const deliver = async () =>
    cdp.send('ServiceWorker.deliverPushMessage', {
      origin,
      registrationId: await registrationId,
      data: JSON.stringify({
        title: '역삼점 · 판매 없음',
        body: '14:10 이후 판매가 없습니다.',
        tag: 'quiet-e2e',
        store: storeId,
      }),
    })
  const shown = () =>
    page.evaluate(async () =>
      (await (await navigator.serviceWorker.ready).getNotifications()).map(
        (n) => `${n.title} | ${n.tag} | ${n.body}`,
      ),
    )
  const expected = [`역삼점 · 판매 없음 | quiet-e2e | 14:10 이후 판매가 없습니다.`]
  await deliver()
  // DevTools' delivery says nothing of whether the worker got the event, and once in a CI run no
  // notification came within 10 s (not seen again in repeated runs). A push service delivers again what
  // its worker did not take; so does this, once, and says so. The notification, its title, tag and
  // text, must still come from the worker's own handler (the same tag: never two).
  const first = await expect
    .poll(shown)
    .toEqual(expected)
    .then(() => true)
    .catch(() => false)
  if (!first) {
    console.log('the first push reached no notification in 10 s; delivered again')
    test.info().annotations.push({ type: 'push delivered again', description: 'no notification after 10 s' })
    await deliver()
    await expect.poll(shown).toEqual(expected)
  }

  // A click on it (dispatched in the worker: headless Chromium has no notification to click) opens the store.
  const [worker] = context.serviceWorkers()
  if (!worker) throw new Error('no service worker')
  await worker.evaluate(async () => {
    const scope = self as unknown as {
      registration: ServiceWorkerRegistration
      dispatchEvent(event: Event): boolean
    }
    const [notification] = await scope.registration.getNotifications({ tag: 'quiet-e2e' })
    const NotificationEventOf = (
      self as unknown as { NotificationEvent: new (type: string, init: object) => Event }
    ).NotificationEvent
    scope.dispatchEvent(new NotificationEventOf('notificationclick', { notification }))
  })
  await expect(page).toHaveURL(new RegExp(`/\\?store=${storeId}$`))
  await expect(page.getByTestId('month-total')).toBeVisible()
  expect(
    await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length),
  ).toBe(0)

  // Logout ends the sign-in, and its subscription with it.
  recordDialogs(page)
  await page.getByRole('button', { name: 'Logout' }).click()
  await expect(page).toHaveURL(/\/login$/)
  const access = await apiToken(baseURL ?? '', staff)
  const after = await fetch(`${baseURL}/api/v0/push/test`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access}` },
  })
  expect(await after.json()).toEqual({ subscriptions: 0 })
})
