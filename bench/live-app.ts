// Live figures (docs/product.md §2.3, decisions 83-88) in Chromium against the real server: how soon a
// device's sale shows on an open sales screen (p95), and the bytes an open screen costs over an hour
// of sales at the demo stores' busiest rhythm (device/simulate.ts). Time is compressed: the hour's
// sales are posted one after another (each waits until the screen shows the one before, so each is
// one answer of its own, the worst case), and the held calls that an hour without sales would renew
// every 25 s are counted from one such round, measured.
import { chromium, type Page } from '@playwright/test'
import { hourWeights, monthFactor, weekdayFactor } from '../device/simulate.ts'
import type { RunningServer } from '../scripts/run-server.ts'
import { chromeArgs, chromePath } from '../tests/e2e/browser.ts'

const held = 25
/** The demo stores' cycles a day (server/db/seed.ts), busiest first. */
const perDay = [200, 85, 45]
/** Sales in the busiest hour of the busiest weekday and month, by the demo rhythm. */
const busiestHour = (cycles: number) =>
  Math.ceil(
    (cycles * Math.max(...weekdayFactor) * Math.max(...monthFactor) * Math.max(...hourWeights)) /
      hourWeights.reduce((a, b) => a + b, 0),
  )

async function api(server: RunningServer, path: string, bearer: string, body: unknown, key?: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${bearer}`,
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return response.json() as Promise<Record<string, unknown>>
}

/** A device paired with a store, through the owner's call and the device's. */
async function pair(server: RunningServer, access: string, storeId: number) {
  const added = await api(server, `/api/v0/store/${storeId}/devices`, access, { name: `bench ${storeId}` })
  const paired = await fetch(`${server.url}/api/v0/device/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: added.pairingCode }),
  })
  return ((await paired.json()) as { key: string }).key
}

let sold = 0
async function sell(server: RunningServer, deviceKey: string, amount: number) {
  sold += 1
  const id = `bench-live-${Date.now()}-${sold}`
  await api(
    server,
    '/api/v0/device/sales',
    deviceKey,
    { sales: [{ id, createdAt: new Date().toISOString(), amount }] },
    id,
  )
}

/** Every byte the page sends and receives (headers and bodies, as Chromium counts them). */
async function wire(page: Page) {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Network.enable')
  let bytes = 0
  let headers = 0
  let changesCalls = 0
  cdp.on('Network.loadingFinished', (event) => (bytes += event.encodedDataLength))
  cdp.on('Network.responseReceivedExtraInfo', (event) => (headers += event.headersText?.length ?? 0))
  cdp.on('Network.requestWillBeSent', (event) => {
    if (event.request.url.includes('/usage/changes')) changesCalls += 1
  })
  cdp.on('Network.requestWillBeSentExtraInfo', (event) => {
    // The request line and headers as sent (the cookie included).
    const sent =
      32 + Object.entries(event.headers).reduce((sum, [k, v]) => sum + k.length + String(v).length + 4, 0)
    bytes += sent
    headers += sent
  })
  return { bytes: () => bytes, bodies: () => bytes - headers, changesCalls: () => changesCalls }
}

const wonOf = (text: string | null) => Number((text ?? '').replace(/\D/g, ''))
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1] ?? 0

export async function benchLiveApp(server: RunningServer, phone: string) {
  const browser = await chromium.launch({ executablePath: chromePath, args: chromeArgs })
  try {
    const context = await browser.newContext({ baseURL: server.url, locale: 'ko-KR' })
    const page = await context.newPage()
    page.on('dialog', (dialog) => void dialog.accept())
    await page.goto('/login')
    await page.getByLabel('휴대폰 번호').fill(phone)
    const mark = server.output().length
    await page.getByRole('button', { name: 'get verification code' }).click()
    await page.getByLabel('인증번호').fill(await server.smsCode(phone, mark))
    await page.getByRole('button', { name: 'Login' }).click()
    await page.locator('.sales-figures[aria-busy="false"]:not(.is-stale)').waitFor()
    const access = (await context.cookies()).find((c) => c.name === 'accessToken')?.value ?? ''
    const keys = await Promise.all([1, 2, 3].map((id) => pair(server, access, id)))

    // The sales screen of the busy store: each sale until the month's total shows it.
    await page.goto('/?store=1')
    await page.locator('.sales-figures[aria-busy="false"]:not(.is-stale)').waitFor()
    await page.waitForTimeout(1000)
    const sales = busiestHour(perDay[0] as number)
    const salesWire = await wire(page)
    const latencies: number[] = []
    for (let i = 0; i < sales; i++) {
      const amount = 1000 + i * 10
      const shown = wonOf(await page.getByTestId('month-total').textContent())
      const started = Date.now()
      await sell(server, keys[0] as string, amount)
      await page.waitForFunction(
        (expected) =>
          document.querySelector('[data-testid="month-total"]')?.textContent?.replace(/\D/g, '') === expected,
        String(shown + amount),
        { polling: 'raf' },
      )
      latencies.push(Date.now() - started)
    }
    const salesBytes = salesWire.bytes()
    const salesBodies = salesWire.bodies()

    // The overview of the 3 stores: an idle round of its 3 held calls measured, then the hour's sales of all 3.
    await page.goto('/stores')
    await page.getByTestId('total-today').waitFor()
    await page.waitForTimeout(1000)
    const idleWire = await wire(page)
    await page.waitForTimeout((held + 3) * 1000)
    const idleRounds = idleWire.changesCalls()
    const idleRoundBytes = idleWire.bytes() / Math.max(1, idleRounds)
    const idleRoundBodies = idleWire.bodies() / Math.max(1, idleRounds)
    const overviewWire = await wire(page)
    const overviewSales = perDay.map(busiestHour)
    for (const [store, count] of overviewSales.entries()) {
      for (let i = 0; i < count; i++) {
        const amount = 2000 + i * 10
        const shown = wonOf(await page.getByTestId('total-today').textContent())
        await sell(server, keys[store] as string, amount)
        await page.waitForFunction(
          (expected) =>
            document.querySelector('[data-testid="total-today"]')?.textContent?.replace(/\D/g, '') ===
            expected,
          String(shown + amount),
          { polling: 'raf' },
        )
      }
    }
    const overviewBytes = overviewWire.bytes()
    const roundsPerHour = 3600 / held
    return {
      sales,
      latencyP95Ms: p95(latencies),
      latencyMedianMs: [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length / 2)] ?? 0,
      latenciesMs: latencies,
      idleRoundBytes: Math.round(idleRoundBytes),
      salesScreenBytesPerHour: Math.round(salesBytes + roundsPerHour * idleRoundBytes),
      salesScreenSalesBytes: salesBytes,
      idleRoundBodyBytes: Math.round(idleRoundBodies),
      /** The same hour's bodies alone, without the HTTP/1.1 headers (which HTTP/2's header compression mostly removes). */
      salesScreenBodyBytesPerHour: Math.round(salesBodies + roundsPerHour * idleRoundBodies),
      overviewBodyBytesPerHour: Math.round(overviewWire.bodies() + 3 * roundsPerHour * idleRoundBodies),
      overviewSales: overviewSales.reduce((a, b) => a + b, 0),
      overviewBytesPerHour: Math.round(overviewBytes + 3 * roundsPerHour * idleRoundBytes),
      overviewSalesBytes: overviewBytes,
    }
  } finally {
    await browser.close()
  }
}
