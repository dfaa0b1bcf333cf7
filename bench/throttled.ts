// What an owner feels on a slow line with a cheap phone, in Chromium against the real server: the
// network and the CPU throttled through the DevTools protocol (Network.emulateNetworkConditions,
// Emulation.setCPUThrottlingRate), a new browser context per run, three runs per profile:
//
// - first visit: from navigation until the phone field is on screen and enabled (index.html's own
//   login form counts: it can be typed into, and the app's form takes over what was typed), and,
//   apart, until the app's own form is (its buttons work);
// - sign-in: from pressing Login until both totals are painted (the browser's element timing, see
//   the watcher);
// - switching store: once the opened store's two years are in, from choosing another store (its year
//   not on the device) in the store switcher until both its totals are on screen;
// - repeat visit: a new page in the same context (service worker installed, figures kept), from
//   navigation until both totals are painted: the kept ones painted before the app has run
//   (src/shell/paint-first.ts) count, and, apart, until the app's own screen shows them.
//
// `node --import tsx bench/throttled.ts [build dirs]` runs it alone (both builds by default; BENCH_PROFILES=3G
// for one profile); `npm run bench` runs it first.
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from '@playwright/test'
import { type RunningServer, runServer } from '../scripts/run-server.ts'
import { chromeArgs, chromePath } from '../tests/e2e/browser.ts'

export interface NetworkProfile {
  name: string
  /**
   * Only the first visit and the sign-in (the Slow 4G profile, whose one target is the sign-in): the
   * switch, the repeat visit and the floor are measured on 3G, where their targets are (the floor opens no
   * page over the line at all, so it measured the same twice; trimmed 2026-12-02).
   */
  signInOnly?: boolean
  /** Round trip added to every request, ms. */
  latencyMs: number
  downloadKbps: number
  uploadKbps: number
}

/** The two profiles the figures are reported for (DevTools' names, the issue's numbers). */
export const profiles: NetworkProfile[] = [
  { name: 'Slow 4G', latencyMs: 150, downloadKbps: 1600, uploadKbps: 750, signInOnly: true },
  { name: '3G', latencyMs: 400, downloadKbps: 400, uploadKbps: 400 },
]
export const cpuSlowdown = 4
export const runsPerProfile = 3

export interface ThrottledRun {
  firstVisitMs: number
  /** Until the app's own login form is usable (its buttons work). */
  firstVisitAppMs: number
  signInMs: number
  /** Until both totals of another store, whose year is not on the device, after choosing it (these last four: not with `signInOnly`). */
  switchMs?: number
  repeatVisitMs?: number
  repeatVisitAppMs?: number
  /**
   * The floor under the repeat visit: the same kind of new page, on the same CPU, opening a page that
   * holds the two totals as plain text, with no script, no style and no service worker, from a server on
   * another loopback address that answers at once (the network profile left off: nothing of it is
   * fetched over the line either way). What the browser itself takes to show a page here.
   */
  floorMs?: number
}

/** What the page records as it goes, in performance.now() ms (from its navigation). */
declare global {
  interface Window {
    benchMarks?: {
      phoneUsable?: number
      appPhoneUsable?: number
      totalsShown?: number
      appTotalsShown?: number
    }
  }
}

// A string, not a function: a function would be serialized with the helpers the TypeScript loader adds.
// Each mark is also told on the console, where the bench hears it: waiting on the page instead
// (waitForFunction) would make Playwright evaluate its own 300 kB script in the page, on the throttled
// main thread, in the middle of the very paint being measured (a trace showed 150–300 ms of it).
//
// The totals count when they are painted, not when they are in the page: an animation frame's callback
// runs before that frame's style, layout and paint (on a slow phone the layout of the first Korean text
// alone took a third of a second), so the frame in which both totals are first seen tags them for the
// browser's element timing (`elementtiming`, set before the frame paints), and the mark is the later of
// the two render times the browser reports for them: when the frame that shows them was presented.
const watcher = `(() => {
  const marks = (window.benchMarks = {})
  const set = (name, at = performance.now()) => {
    if (marks[name] !== undefined) return
    marks[name] = at
    console.debug('bench-mark ' + name + ' ' + marks[name])
  }
  const rendered = {}
  const painted = (name, ids) => {
    if (ids.every((id) => rendered[id] !== undefined)) set(name, Math.max(...ids.map((id) => rendered[id])))
  }
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) rendered[entry.identifier] ??= entry.renderTime || entry.loadTime
    painted('appTotalsShown', ['app-year', 'app-month'])
    painted('totalsShown', ['app-year', 'app-month'])
    painted('totalsShown', ['kept-0', 'kept-1'])
  }).observe({ type: 'element', buffered: true })
  const tag = (element, id) => {
    if (element && !element.hasAttribute('elementtiming')) element.setAttribute('elementtiming', id)
  }
  const look = () => {
    // Shown (index.html's login form is there, hidden, until it is shown) and enabled.
    const usable = [...document.querySelectorAll('input[type="tel"]')].some((phone) => !phone.disabled && phone.checkVisibility())
    if (usable) set('phoneUsable')
    const appPhone = document.getElementById('phone')
    if (appPhone && !appPhone.disabled && appPhone.checkVisibility()) set('appPhoneUsable')
    const year = document.querySelector('[data-testid="year-total"]')
    const month = document.querySelector('[data-testid="month-total"]')
    if (year && month) {
      tag(year, 'app-year')
      tag(month, 'app-month')
    }
    const kept = document.querySelectorAll('.kept-totals .summary-total')
    if (kept.length === 2) kept.forEach((total, index) => tag(total, 'kept-' + index))
    requestAnimationFrame(look)
  }
  requestAnimationFrame(look)
})()`

/** A page of `context` on `profile`'s line with the CPU `cpuSlowdown` times slower, `script` run in it first. */
export async function throttledPage(
  context: BrowserContext,
  profile: NetworkProfile,
  script = watcher,
): Promise<Page> {
  const page = await context.newPage()
  page.on('dialog', (dialog) => void dialog.accept())
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown })
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: profile.latencyMs,
    downloadThroughput: (profile.downloadKbps * 1000) / 8,
    uploadThroughput: (profile.uploadKbps * 1000) / 8,
  })
  await page.addInitScript(script)
  hearMarks(page)
  return page
}

/** Keeps the marks `page` tells on its console (see the watcher). */
function hearMarks(page: Page) {
  heardMarks.set(page, new Map())
  page.on('console', (message) => {
    const [word, name, ms] = message.text().split(' ')
    if (word === 'bench-mark' && name && ms) heardMarks.get(page)?.set(name, Number(ms))
  })
}

type MarkName = keyof NonNullable<Window['benchMarks']>
const heardMarks = new WeakMap<Page, Map<string, number>>()

/** The time `name` was marked on `page`, as the page told it on its console (see the watcher). */
async function mark(page: Page, name: MarkName): Promise<number> {
  const heard = heardMarks.get(page)
  if (!heard) throw new Error('mark() needs a page made by throttledPage()')
  const until = Date.now() + 120_000
  while (!heard.has(name)) {
    if (Date.now() > until) throw new Error(`${name} was not marked within 120 s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return heard.get(name) as number
}

/** The store the switch goes to: the demo's second (85 cycles a day), whose year the device does not hold. */
const switchTo = '뽀송 코인세탁 선릉점'
/** The store the sign-in opens: the demo's busiest (200 cycles a day). */
const openedStore = '행복빨래방 역삼점'

/**
 * Chooses `name` in the store switcher once the opened store's two years (this year's, then last
 * year's for the comparisons) have arrived, so the switch has the line to itself; returns the time
 * from the choice until both of its totals are on screen under its name (the screen never shows one
 * store's figures under another's name, so its totals are its own).
 */
async function switchStore(page: Page, name: string): Promise<number> {
  await page.waitForFunction(
    () =>
      performance.getEntriesByType('resource').filter((entry) => /\/usage\?/.test(entry.name)).length >= 2,
    null,
    { timeout: 120_000, polling: 100 },
  )
  await page.getByRole('button', { name: /매장 바꾸기/ }).click()
  const choice = page.getByRole('button', { name, exact: true })
  await choice.waitFor()
  // A string, as the watcher above: a function would bring the TypeScript loader's helpers along. From
  // the choice's click (as the page gets it) until both totals show under the chosen store's name.
  await page.evaluate(`(() => {
    document.addEventListener('click', () => {
      const chosen = performance.now()
      const look = () => {
        const shown =
          document.querySelector('.store-current .store-name')?.textContent === ${JSON.stringify(name)} &&
          document.querySelector('[data-testid="year-total"]') &&
          document.querySelector('[data-testid="month-total"]')
        if (shown) window.switchMs = performance.now() - chosen
        else requestAnimationFrame(look)
      }
      requestAnimationFrame(look)
    }, { capture: true, once: true })
  })()`)
  await choice.click()
  return page
    .waitForFunction(() => (window as unknown as { switchMs?: number }).switchMs, null, {
      timeout: 120_000,
      polling: 50,
    })
    .then((handle) => handle.jsonValue() as Promise<number>)
}

/** Two totals as plain text, as the kept totals are marked, and nothing else. */
const floorPage = `<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>빨래방 매출</title></head><body><section class="kept-totals"><p class="summary-total">1,234,567원</p><p class="summary-total">89,000원</p></section></body></html>`

let floorServer: Promise<string> | undefined
/** The address of a server on 127.0.0.2 that answers every request with `floorPage`, started once. */
function floorAddress() {
  floorServer ??= new Promise((resolve) => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      response.end(floorPage)
    })
    server.unref()
    server.listen(0, '127.0.0.2', () =>
      resolve(`http://127.0.0.2:${(server.address() as AddressInfo).port}/`),
    )
  })
  return floorServer
}

/** The floor's time: a new page of `context` with the CPU as slow, from navigation until the totals show. */
async function floorVisit(context: BrowserContext): Promise<number> {
  const page = await context.newPage()
  try {
    const cdp = await context.newCDPSession(page)
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown })
    await page.addInitScript(watcher)
    hearMarks(page)
    await page.goto(await floorAddress(), { waitUntil: 'commit' })
    return await mark(page, 'totalsShown')
  } finally {
    await page.close()
  }
}

async function oneRun(
  browser: Browser,
  server: RunningServer,
  phone: string,
  profile: NetworkProfile,
): Promise<ThrottledRun> {
  const context = await browser.newContext({
    baseURL: server.url,
    viewport: { width: 360, height: 800 },
    locale: 'ko-KR',
    timezoneId: 'Asia/Seoul',
  })
  try {
    const page = await throttledPage(context, profile)
    await page.goto('/login', { waitUntil: 'commit' })
    const firstVisitMs = await mark(page, 'phoneUsable')
    const firstVisitAppMs = await mark(page, 'appPhoneUsable')

    await page.getByLabel('휴대폰 번호').fill(phone)
    const sent = server.output().length
    await page.getByRole('button', { name: 'get verification code' }).click()
    await page.getByLabel('인증번호').fill(await server.smsCode(phone, sent))
    const pressedAt = await page.evaluate(() => performance.now())
    await page.getByRole('button', { name: 'Login' }).click()
    const signInMs = (await mark(page, 'appTotalsShown')) - pressedAt
    if (profile.signInOnly) return { firstVisitMs, firstVisitAppMs, signInMs }
    const switchMs = await switchStore(page, switchTo)
    // Back to the opened store, so that the repeat visit paints its totals as before.
    await page.getByRole('button', { name: /매장 바꾸기/ }).click()
    await page.getByRole('button', { name: openedStore, exact: true }).click()
    await page.waitForFunction(
      (name) =>
        document.querySelector('.store-current .store-name')?.textContent === name &&
        document.querySelector('[data-testid="year-total"]'),
      openedStore,
      { timeout: 120_000, polling: 100 },
    )

    // The service worker in control and the figures kept, as on the owner's next visit.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready
    })
    await page.waitForFunction(
      () => (localStorage.getItem('laundry-sales-cache') ?? '').includes('"usage"'),
      null,
      {
        timeout: 120_000,
      },
    )
    await page.close()
    const again = await throttledPage(context, profile)
    await again.goto('/', { waitUntil: 'commit' })
    const repeatVisitMs = await mark(again, 'totalsShown')
    const repeatVisitAppMs = await mark(again, 'appTotalsShown')
    const floorMs = await floorVisit(context)
    return { firstVisitMs, firstVisitAppMs, signInMs, switchMs, repeatVisitMs, repeatVisitAppMs, floorMs }
  } finally {
    await context.close()
  }
}

export type ThrottledFigures = Record<string, ThrottledRun[]>

/**
 * Every profile (or those named in `names`, else in BENCH_PROFILES), `runsPerProfile` runs each, for the
 * build the server serves.
 */
export async function benchThrottled(
  server: RunningServer,
  phone: string,
  names?: string[],
): Promise<ThrottledFigures> {
  const browser = await chromium.launch({ executablePath: chromePath, args: chromeArgs })
  try {
    const figures: ThrottledFigures = {}
    const only = names ?? process.env.BENCH_PROFILES?.split(',')
    for (const profile of profiles.filter(({ name }) => !only || only.includes(name))) {
      const runs: ThrottledRun[] = []
      for (let run = 0; run < runsPerProfile; run++) runs.push(await oneRun(browser, server, phone, profile))
      figures[profile.name] = runs
    }
    return figures
  } finally {
    await browser.close()
  }
}

/** `3.21–3.30 s`: the range of one figure over the runs. */
export const range = (runs: ThrottledRun[], figure: keyof ThrottledRun) => {
  const values = runs.flatMap((run) => run[figure] ?? []).sort((a, b) => a - b)
  const s = (ms: number) => (ms / 1000).toFixed(2)
  return `${s(values[0] ?? 0)}–${s(values.at(-1) ?? 0)} s`
}

/** `0.31, 0.28, 0.35 s (median 0.31 s)`: every run of one figure, in the order run, and their median. */
export const eachRun = (runs: ThrottledRun[], figure: keyof ThrottledRun) => {
  const values = runs.flatMap((run) => run[figure] ?? [])
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length / 2
  const median =
    sorted.length % 2 ? sorted[Math.floor(middle)] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
  const s = (ms: number) => (ms / 1000).toFixed(2)
  return `${values.map(s).join(', ')} s (median ${s(median ?? 0)} s)`
}

/** The sign-in limits of a bench server: every run asks for a code. */
export const benchServerEnv = {
  CODE_REQUESTS_PER_PHONE_PER_HOUR: '100',
  CODE_REQUESTS_PER_PHONE_PER_DAY: '101',
  CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY: '100',
  CODE_REQUESTS_PER_IP_PER_HOUR: '100',
  SIGN_ATTEMPTS_PER_IP_PER_HOUR: '100',
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-throttled-'))
  try {
    for (const webDir of process.argv.slice(2).length ? process.argv.slice(2) : ['dist', 'dist-preact']) {
      const server = await runServer({ dataDir, webDir: path.resolve(webDir), env: benchServerEnv })
      try {
        const figures = await benchThrottled(server, '01012345678')
        for (const [profile, runs] of Object.entries(figures)) {
          console.log(
            `${webDir} ${profile}: first visit ${range(runs, 'firstVisitMs')} (the app's form ${range(runs, 'firstVisitAppMs')}), sign-in ${range(runs, 'signInMs')}, switching store ${range(runs, 'switchMs')}, repeat visit until both totals are painted ${eachRun(runs, 'repeatVisitMs')} (the app's screen ${eachRun(runs, 'repeatVisitAppMs')}; the browser's floor, a page of two numbers and nothing else, painted: ${eachRun(runs, 'floorMs')})`,
          )
        }
      } finally {
        await server.stop()
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
