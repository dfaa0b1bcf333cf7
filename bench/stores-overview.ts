// The stores overview on a slow line (the target: an owner with 30 stores sees the overview on 3G
// in ≤ 3 s; docs/product.md decision 140), in Chromium against the real server: the demo owner with 30
// stores of demo data (the three demo stores, and 27 more at the demo rhythm, 45 to 200 cycles a day,
// over the last 120 days: every hour the overview reads, in a fraction of the seeding time), on the
// embedded database; the server loads the view of every store at start (decision 139). A new browser
// context per run, 3G and the CPU 4× slower as bench/throttled.ts sets them:
//
// - sign-in to the overview: from pressing Login (the app lands on the sales screen of the first
//   store, as it does) until all 30 rows show their figures, the header's `전체 매장` link pressed as
//   soon as it is on screen;
// - of which the overview's own part: from that press until the 30 rows.
//
// `node --import tsx bench/stores-overview.ts [build dirs]` runs it alone (the React build by default;
// build first); `npm run bench` runs it for the React build (both with --full).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type Browser, chromium } from '@playwright/test'
import { type RunningServer, runServer } from '../scripts/run-server.ts'
import { addStore, grant } from '../server/db/accounts.ts'
import { openDatabase } from '../server/db/client.ts'
import { embeddedFolderName } from '../server/db/data-names.ts'
import { demoAccounts, insertDemoRecords, seedDemoIfEmpty } from '../server/db/seed.ts'
import { chromeArgs, chromePath } from '../tests/e2e/browser.ts'
import { benchServerEnv, cpuSlowdown, type NetworkProfile, profiles, throttledPage } from './throttled.ts'

export const overviewStores = 30
export const overviewRuns = 3
const rhythms = [200, 150, 120, 85, 60, 45]

export interface OverviewRun {
  /** From pressing Login until the 30 rows show their figures. */
  signInToRowsMs: number
  /** From pressing the header's stores link until then. */
  linkToRowsMs: number
}

/** Demo data in `dataDir`'s embedded database, and 27 more stores of the demo owner's at the demo rhythm. */
export async function seedManyStores(dataDir: string, count = overviewStores) {
  const database = await openDatabase({ pgliteDir: path.join(dataDir, embeddedFolderName) })
  try {
    const now = new Date()
    await seedDemoIfEmpty(database.db, path.join(dataDir, 'images'), now)
    const more: { storeId: number; cyclesPerDay: number }[] = []
    for (let i = 4; i <= count; i++) {
      const storeId = await addStore(database.db, { name: `빨래방 ${i}호점` })
      await grant(database.db, demoAccounts.owner, storeId, 'owner')
      more.push({ storeId, cyclesPerDay: rhythms[i % rhythms.length] as number })
    }
    // A few stores a statement: each is one transaction of its records.
    const from = new Date(now.getTime() - 120 * 86_400_000).toISOString().slice(0, 10)
    for (let first = 0; first < more.length; first += 9)
      await insertDemoRecords(database.db, more.slice(first, first + 9), now, from)
  } finally {
    await database.close()
  }
}

// A string, not a function (as bench/throttled.ts): the page marks when every row shows its figures.
const watcher = `(() => {
  const marks = (window.benchOverview = {})
  const look = () => {
    if (marks.rows === undefined && document.querySelectorAll('[data-testid="store-today"]').length >= ${overviewStores})
      marks.rows = performance.now()
    requestAnimationFrame(look)
  }
  requestAnimationFrame(look)
})()`

async function oneRun(
  browser: Browser,
  server: RunningServer,
  profile: NetworkProfile,
): Promise<OverviewRun> {
  const context = await browser.newContext({
    baseURL: server.url,
    viewport: { width: 360, height: 800 },
    locale: 'ko-KR',
    timezoneId: 'Asia/Seoul',
  })
  try {
    const page = await throttledPage(context, profile, watcher)
    await page.goto('/login')
    const phone = demoAccounts.owner
    await page.getByLabel('휴대폰 번호').fill(phone)
    const sent = server.output().length
    await page.getByRole('button', { name: 'get verification code' }).click()
    await page.getByLabel('인증번호').fill(await server.smsCode(phone, sent))
    const pressedAt = await page.evaluate(() => performance.now())
    await page.getByRole('button', { name: 'Login' }).click()
    const link = page.locator('a.header-stores')
    await link.waitFor({ state: 'visible', timeout: 120_000 })
    const linkAt = await page.evaluate(() => performance.now())
    await link.click()
    const rowsAt = await page
      .waitForFunction(() => (window as { benchOverview?: { rows?: number } }).benchOverview?.rows, null, {
        timeout: 120_000,
        polling: 50,
      })
      .then((handle) => handle.jsonValue() as Promise<number>)
    return { signInToRowsMs: rowsAt - pressedAt, linkToRowsMs: rowsAt - linkAt }
  } finally {
    await context.close()
  }
}

/** `overviewRuns` runs on 3G for the build the server serves. */
export async function benchStoresOverview(server: RunningServer): Promise<OverviewRun[]> {
  const profile = profiles.find(({ name }) => name === '3G') as NetworkProfile
  const browser = await chromium.launch({ executablePath: chromePath, args: chromeArgs })
  try {
    const runs: OverviewRun[] = []
    for (let run = 0; run < overviewRuns; run++) runs.push(await oneRun(browser, server, profile))
    return runs
  } finally {
    await browser.close()
  }
}

/** A data folder with the owner of 30 stores, and the server on it for each build in turn. */
export async function storesOverviewFigures(webDirs: string[]) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-overview-'))
  try {
    const seeding = performance.now()
    await seedManyStores(dataDir)
    const seedMs = Math.round(performance.now() - seeding)
    const figures: Record<string, OverviewRun[]> = {}
    for (const webDir of webDirs) {
      const server = await runServer({ dataDir, webDir: path.resolve(webDir), env: benchServerEnv })
      try {
        figures[webDir] = await benchStoresOverview(server)
      } finally {
        await server.stop()
      }
    }
    return { seedMs, figures }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(2)
/** `3.1, 3.2, 3.3 s`: every run of one figure. */
export const runsOf = (runs: OverviewRun[], figure: keyof OverviewRun) =>
  `${runs.map((run) => seconds(run[figure])).join(', ')} s`

if (import.meta.url === `file://${process.argv[1]}`) {
  const webDirs = process.argv.slice(2).length ? process.argv.slice(2) : ['dist']
  const { seedMs, figures } = await storesOverviewFigures(webDirs)
  console.error(`seeded ${overviewStores} stores in ${seedMs} ms`)
  for (const [webDir, runs] of Object.entries(figures))
    console.error(
      `${webDir} 3G, CPU ${cpuSlowdown}x: sign-in to ${overviewStores} rows ${runsOf(runs, 'signInToRowsMs')}; the stores link to the rows ${runsOf(runs, 'linkToRowsMs')}`,
    )
  console.log(JSON.stringify({ seedMs, figures }))
}
