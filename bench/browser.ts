// In Chromium against the real server: the longest main-thread task while switching years (from a
// performance trace, so tasks under 50 ms count too), and how soon the figures are painted on a repeat
// visit offline, from the service worker and the copy kept on the device.
import { chromium } from '@playwright/test'
import type { RunningServer } from '../scripts/run-server.ts'
import { chromeArgs, chromePath } from '../tests/e2e/browser.ts'

const settled = '.sales-figures[aria-busy="false"]:not(.is-stale)'

interface TraceEvent {
  name: string
  ph: string
  dur?: number
  pid: number
  tid: number
  args?: { name?: string }
}

/** The longest task on the page's main thread in a Chromium trace, in ms. */
function longestMainThreadTask(trace: Buffer): number {
  const { traceEvents } = JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] }
  const main = new Set(
    traceEvents
      .filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  )
  let longest = 0
  for (const event of traceEvents) {
    if (event.name === 'RunTask' && event.ph === 'X' && main.has(`${event.pid}:${event.tid}`)) {
      longest = Math.max(longest, (event.dur ?? 0) / 1000)
    }
  }
  return longest
}

export async function benchBrowser(server: RunningServer, phone: string) {
  const browser = await chromium.launch({ executablePath: chromePath, args: chromeArgs })
  try {
    const context = await browser.newContext({
      baseURL: server.url,
      viewport: { width: 360, height: 800 },
      locale: 'ko-KR',
    })
    const page = await context.newPage()
    page.on('dialog', (dialog) => void dialog.accept())

    await page.goto('/login')
    await page.getByLabel('휴대폰 번호').fill(phone)
    const mark = server.output().length
    await page.getByRole('button', { name: 'get verification code' }).click()
    await page.getByLabel('인증번호').fill(await server.smsCode(phone, mark))
    await page.getByRole('button', { name: 'Login' }).click()
    await page.locator(settled).waitFor()
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready
    })

    // A year switch: last year's busy-store figures fetched, bucketed in the worker, drawn.
    const label = page.getByRole('button', { name: /^\d{4}년 \d{1,2}월$/ })
    const year = Number((await label.textContent())?.slice(0, 4))
    await label.click()
    await page.getByRole('button', { name: '이전 해' }).click()
    await browser.startTracing(page, {
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'],
    })
    const switchStarted = Date.now()
    await page.getByRole('button', { name: '6월', exact: true }).click()
    await page.getByRole('button', { name: `${year - 1}년 6월` }).waitFor()
    await page.locator(settled).waitFor()
    const switchMs = Date.now() - switchStarted
    // The comparisons' year before is fetched, bucketed and drawn after the figures: trace that too.
    await page.waitForTimeout(1500)
    const longestTaskMs = longestMainThreadTask(await browser.stopTracing())

    // A repeat visit, offline: the app from the service worker, the figures from local storage.
    await page.waitForFunction(
      (key) => (localStorage.getItem('laundry-sales-cache') ?? '').includes(key),
      `"usage",1,${year - 1}]`,
    )
    await context.setOffline(true)
    // The first frame in which the figures are on screen, timed from the start of navigation. (A string:
    // a function would be serialized with the helpers the TypeScript loader adds to it.)
    await page.addInitScript(`(() => {
      const look = () => {
        const total = document.querySelector('[data-testid="year-total"]')
        const figures = document.querySelector('.sales-figures')
        if (total && total.textContent !== '0원' && figures && !figures.classList.contains('is-stale')) {
          window.paintedAt = performance.now()
        } else {
          requestAnimationFrame(look)
        }
      }
      requestAnimationFrame(look)
    })()`)
    const offlinePaints: number[] = []
    for (let i = 0; i < 3; i++) {
      await page.reload()
      await page.waitForFunction(() => 'paintedAt' in window)
      offlinePaints.push(await page.evaluate(() => Number((window as { paintedAt?: number }).paintedAt)))
    }
    offlinePaints.sort((a, b) => a - b)
    return { yearSwitchMs: switchMs, longestTaskMs, offlineRepeatPaintMs: offlinePaints[1] as number }
  } finally {
    await browser.close()
  }
}

interface LighthouseRun {
  score: number
  firstContentfulPaintMs: number
  largestContentfulPaintMs: number
  totalBlockingTimeMs: number
}

/**
 * Lighthouse's performance score (mobile defaults: emulated phone, simulated slow 4G) for a page, as
 * the median of `runs` runs with their range: one run on a shared machine moves by several hundredths.
 * A run whose trace Lighthouse could not read (NO_NAVSTART happens here now and then) is run again.
 */
export async function lighthouseScore(url: string, runs = 5) {
  const results: LighthouseRun[] = []
  for (let attempt = 0; results.length < runs && attempt < runs * 2; attempt++) {
    const result = await lighthouseRun(url)
    if (result) results.push(result)
  }
  if (results.length === 0) throw new Error(`Lighthouse could not measure ${url}`)
  const scores = results.map((result) => result.score).sort((a, b) => a - b)
  const median = results.find((result) => result.score === scores[Math.floor(scores.length / 2)])
  if (!median) throw new Error('unreachable: the median is one of the runs')
  return {
    ...median,
    runs: results.length,
    lowest: scores[0] ?? median.score,
    highest: scores.at(-1) ?? median.score,
  }
}

async function lighthouseRun(url: string): Promise<LighthouseRun | undefined> {
  const { launch } = await import('chrome-launcher')
  const { default: lighthouse } = await import('lighthouse')
  const chrome = await launch({
    chromePath,
    chromeFlags: chromeArgs.map((flag) => (flag === '--headless' ? '--headless=new' : flag)),
  })
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      onlyCategories: ['performance'],
      logLevel: 'error',
      output: 'json',
    })
    const lhr = result?.lhr
    if (!lhr || lhr.runtimeError || typeof lhr.categories.performance?.score !== 'number') return undefined
    const audit = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN
    return {
      score: lhr.categories.performance.score,
      firstContentfulPaintMs: audit('first-contentful-paint'),
      largestContentfulPaintMs: audit('largest-contentful-paint'),
      totalBlockingTimeMs: audit('total-blocking-time'),
    }
  } finally {
    chrome.kill()
  }
}
