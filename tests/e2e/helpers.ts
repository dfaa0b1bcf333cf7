import { randomBytes } from 'node:crypto'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test'
import { expect } from './fixtures.ts'

export const owner = '01012345678'
export const staff = '01022223333'
export const noStores = '01000000000'
/**
 * Not a demo account: e2e only (global-setup.ts, quiet-stores-data.ts). The owner of two unattended
 * stores selling a cycle every minute around the clock, one of which stopped 2 hours before the run.
 */
export const quietOwner = '01044445555'
export const quietOwnerName = '윤무인'
export const quietStoreNames = { normal: '정상 24시 빨래방', quiet: '멈춘 24시 빨래방' } as const
/**
 * Not demo accounts: e2e only (global-setup.ts, machines-data.ts). The owner and a staff member of one
 * store with no sale but those tests/e2e/machines.spec.ts posts.
 */
export const machinesOwner = '01071717171'
export const machinesStaff = '01072727272'
export const machinesStoreName = '기계 시험 빨래방'
/** Not demo accounts: e2e only, as the machines' (machines-data.ts), for tests/e2e/team-money.spec.ts. */
export const moneyOwner = '01073737373'
export const moneyStaff = '01074747474'
export const moneyStoreName = '금액 숨김 빨래방'
/** The owner of the e2e-only store of tests/e2e/messages.spec.ts (machines-data.ts adds it). */
export const messagesOwner = '01075757575'
export const messagesStoreName = '알림톡 시험 빨래방'

const serverLog = () => {
  const file = process.env.E2E_SERVER_LOG
  if (!file) throw new Error('E2E_SERVER_LOG is not set')
  return file
}

/** Where the server's output ends now; codes sent after this point are read from here on. */
export const logMark = () => statSync(serverLog()).size

/** The code in the first `SMS to <phone>: ...` line the server printed after `mark`. */
export async function readCode(phone: string, mark: number): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 100) {
    const text = readFileSync(serverLog()).subarray(mark).toString('utf8')
    const code = text.match(new RegExp(`SMS to ${phone}: .*?\\b(\\d{4})\\b`))?.[1]
    if (code) return code
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no SMS to ${phone} in the server output`)
}

/** Every dialog the page opens, accepted (or dismissed, for confirms when told so). */
export function recordDialogs(page: Page, { confirm = true } = {}) {
  const messages: string[] = []
  page.on('dialog', (dialog) => {
    messages.push(dialog.message())
    void (dialog.type() === 'confirm' && !confirm ? dialog.dismiss() : dialog.accept())
  })
  return messages
}

/** Signs in through the login screen as a person would, reading the code from the server's console SMS. */
export async function signIn(page: Page, phone = owner) {
  await page.goto('/login')
  await page.getByLabel('휴대폰 번호').fill(phone)
  const mark = logMark()
  await page.getByRole('button', { name: 'get verification code' }).click()
  const code = await readCode(phone, mark)
  await expect(page.getByLabel('인증번호')).toBeFocused()
  await page.getByLabel('인증번호').fill(code)
  await page.getByRole('button', { name: 'Login' }).click()
}

/**
 * The cookies a sign-out leaves behind, but for the known-device credential: the server sets it
 * (HttpOnly) on every successful sign-in and it survives logout on purpose. It holds a random device id
 * and MACs of the numbers signed in, never a record or a number in clear, and it is what keeps the
 * owner's own device able to ask for a code while strangers use up the number's daily bounds.
 */
export async function cookiesBesideKnownDevice(context: BrowserContext) {
  return (await context.cookies()).filter((cookie) => cookie.name !== 'knownDevice')
}

export async function accessToken(context: BrowserContext) {
  const cookie = (await context.cookies()).find((c) => c.name === 'accessToken')
  if (!cookie) throw new Error('no accessToken cookie')
  return cookie.value
}

export interface ServerSums {
  year: number
  months: number[]
}

/** The server's own records of a store and UTC year, straight from the API. */
export async function serverRecords(
  request: APIRequestContext,
  context: BrowserContext,
  storeId: number,
  year: number,
) {
  const response = await request.get(`/api/v0/store/${storeId}/usage?year=${year}`, {
    headers: { authorization: `Bearer ${await accessToken(context)}` },
  })
  expect(response.status()).toBe(200)
  return ((await response.json()) as { usages: { createdAt: string; amount: number }[] }).usages
}

/** The sums of the server's own records of a store and UTC year. */
export async function serverSums(
  request: APIRequestContext,
  context: BrowserContext,
  storeId: number,
  year: number,
) {
  const months = Array<number>(12).fill(0)
  for (const { createdAt, amount } of await serverRecords(request, context, storeId, year)) {
    const month = new Date(createdAt).getUTCMonth()
    months[month] = (months[month] ?? 0) + amount
  }
  return { year: months.reduce((a, b) => a + b, 0), months }
}

/** The month navigator's year-and-month button (`2026년 11월`). */
export const navigatorLabel = (page: Page) => page.getByRole('button', { name: /^\d{4}년 \d{1,2}월$/ })

export const won = (amount: number) => `${new Intl.NumberFormat('ko-KR').format(amount)}원`

/** The figures the sales screen shows. */
export async function shownTotals(page: Page) {
  return {
    year: (await page.getByTestId('year-total').textContent()) ?? '',
    month: (await page.getByTestId('month-total').textContent()) ?? '',
  }
}

/** Waits until the screen shows current (not dimmed, not loading) figures. */
export async function figuresSettled(page: Page) {
  await expect(page.locator('.sales-figures')).not.toHaveClass(/is-stale/)
  await expect(page.locator('.sales-figures')).toHaveAttribute('aria-busy', 'false')
}

/** Resolves once a service worker is active for the page (it then answers the next navigation). */
export async function serviceWorkerReady(page: Page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready
  })
}

/** What the app keeps in local storage for offline use, parsed. */
export async function persistedCache(page: Page) {
  const text = await page.evaluate(() => localStorage.getItem('laundry-sales-cache'))
  return text
    ? (JSON.parse(text) as { clientState: { queries: { queryKey: unknown[]; state: { data: unknown } }[] } })
    : null
}

/**
 * Waits until the buckets of a store and year (or, given 'overview', the server's overview of every
 * store; given 'machines', a store's machines of one UTC month) have been written to local storage
 * (throttled by a second).
 */
export async function persisted(
  page: Page,
  ...key:
    | [storeId: number, year: number]
    | ['overview']
    | [storeId: number, 'machines', year: number, month: number]
) {
  await expect
    .poll(async () => {
      const cache = await persistedCache(page)
      return cache?.clientState.queries.some(
        (q) => JSON.stringify(q.queryKey) === JSON.stringify(['usage', ...key]),
      )
    })
    .toBe(true)
}

/**
 * Deploys a "new version" into the served copy of the build, as a release would: a changed page (with
 * the compressed copies the server sends in its place) and a service worker whose precache lists it
 * with a new revision. Returns a function that puts the original build back.
 */
export function deployNewVersion() {
  const webDir = process.env.E2E_WEB_DIR
  if (!webDir) throw new Error('E2E_WEB_DIR is not set')
  const files = { html: path.join(webDir, 'index.html'), sw: path.join(webDir, 'sw.js') }
  const original = { html: readFileSync(files.html, 'utf8'), sw: readFileSync(files.sw, 'utf8') }
  const writePage = (html: string) => {
    writeFileSync(files.html, html)
    writeFileSync(`${files.html}.br`, brotliCompressSync(html))
    writeFileSync(`${files.html}.gz`, gzipSync(html))
  }
  const restore = () => {
    writePage(original.html)
    writeFileSync(files.sw, original.sw)
  }
  writePage(original.html.replace('<head>', '<head>\n    <meta name="app-build" content="2" />'))
  const revision = randomBytes(16).toString('hex')
  const sw = original.sw.replace(/(\{url:"index\.html",revision:")[0-9a-f]+(")/, `$1${revision}$2`)
  if (sw === original.sw) {
    restore()
    throw new Error('the service worker lists no index.html revision to change')
  }
  writeFileSync(files.sw, sw)
  return restore
}

/** Has the page's service worker look for a new version now (the app does so hourly and on returning). */
export async function checkForUpdate(page: Page) {
  await page.evaluate(async () => {
    await (await navigator.serviceWorker.getRegistration())?.update()
  })
}

/** Where a screenshot goes: one folder per build, so a person can compare the two. */
export const shot = (name: string) =>
  `test-results/screenshots/${path.basename(process.env.E2E_BUILD_DIR ?? 'dist')}/${name}`
