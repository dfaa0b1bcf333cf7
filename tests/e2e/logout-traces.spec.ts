// After logout nothing of the previous user can be read back on the device by any script of the
// origin: not from the browser's HTTP cache (fetch with `only-if-cached`), not from Cache Storage,
// IndexedDB or local storage, and not after the browser restarts on the same profile.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { BrowserContext, Page } from '@playwright/test'
import { chromeArgs, chromePath } from './browser.ts'
import { expect, test } from './fixtures.ts'
import {
  figuresSettled,
  navigatorLabel,
  owner,
  persisted,
  persistedCache,
  recordDialogs,
  serviceWorkerReady,
  shownTotals,
  signIn,
} from './helpers.ts'

/** What a script of the origin can read back: the HTTP cache for `urls`, Cache Storage, IndexedDB, local storage. */
async function readableTraces(page: Page, urls: string[]) {
  return page.evaluate(async (urls) => {
    const httpCache: string[] = []
    for (const url of urls) {
      try {
        const response = await fetch(url, { cache: 'only-if-cached', mode: 'same-origin' })
        httpCache.push(`${url} ${response.status} ${await response.text()}`)
      } catch {
        // Not in the cache: only-if-cached rejects.
      }
    }
    const cacheStorage: string[] = []
    for (const name of await caches.keys()) {
      const cache = await caches.open(name)
      for (const request of await cache.keys()) {
        const body = name.startsWith('workbox-precache') ? '' : await (await cache.match(request))?.text()
        cacheStorage.push(`${name} ${request.url} ${body ?? ''}`)
      }
    }
    const indexedDb: string[] = []
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const opening = indexedDB.open(name)
        opening.onsuccess = () => resolve(opening.result)
        opening.onerror = () => reject(opening.error)
      })
      for (const store of Array.from(db.objectStoreNames)) {
        const rows = await new Promise<unknown[]>((resolve, reject) => {
          const reading = db.transaction(store).objectStore(store).getAll()
          reading.onsuccess = () => resolve(reading.result)
          reading.onerror = () => reject(reading.error)
        })
        indexedDb.push(`${name}/${store} ${JSON.stringify(rows)}`)
      }
      db.close()
    }
    return { httpCache, cacheStorage, indexedDb, localStorage: JSON.stringify({ ...localStorage }) }
  }, urls)
}

async function expectNothingOfThePreviousUser(page: Page, urls: string[], secrets: string[]) {
  const traces = await readableTraces(page, urls)
  // No cookie but the known-device credential, which stays on purpose (helpers.ts): it is HttpOnly, so no
  // script reads it, and holds a random device id and MACs, none of the user's data.
  const cookies = await page.context().cookies()
  expect(cookies.map((cookie) => cookie.name)).toEqual(['knownDevice'])
  expect(cookies[0]?.httpOnly).toBe(true)
  for (const secret of secrets) expect(cookies[0]?.value).not.toContain(secret)
  // (The first characters of each are enough to see what was readable.)
  expect(traces.httpCache.map((entry) => entry.slice(0, 300))).toEqual([])
  // Only the app itself stays: its precache.
  expect(traces.cacheStorage.filter((entry) => !entry.startsWith('workbox-precache'))).toEqual([])
  expect(traces.cacheStorage.filter((entry) => /\/api\/|\/images\//.test(entry))).toEqual([])
  const everything = JSON.stringify(traces)
  for (const secret of secrets) expect(everything).not.toContain(secret)
  expect((await persistedCache(page))?.clientState.queries ?? []).toEqual([])
}

test('after logout, no record or figure of the previous user is readable on the device, also after a browser restart', async ({
  playwright,
  baseURL,
}) => {
  test.setTimeout(90_000)
  const profile = mkdtempSync(path.join(tmpdir(), 'laundry-profile-'))
  const launch = () =>
    playwright.chromium.launchPersistentContext(profile, {
      executablePath: chromePath,
      args: chromeArgs,
      baseURL,
      locale: 'ko-KR',
      timezoneId: 'Asia/Seoul',
    })
  let context: BrowserContext = await launch()
  try {
    const page = context.pages()[0] ?? (await context.newPage())
    recordDialogs(page)
    const viewed = new Set<string>()
    page.on('response', (response) => {
      const url = new URL(response.url())
      if (/^\/api\/v0\/(user$|store\/)|^\/images\//.test(url.pathname)) viewed.add(response.url())
    })
    await signIn(page)
    await figuresSettled(page)
    const year = Number((await navigatorLabel(page).textContent())?.slice(0, 4))
    await serviceWorkerReady(page)
    // Once the service worker controls the page, pictures go to Cache Storage too.
    await page.reload()
    await figuresSettled(page)
    const totals = await shownTotals(page)
    await persisted(page, 1, year)
    expect([...viewed].some((url) => url.includes(`/usage?year=${year}`))).toBe(true)

    // While signed in, the figures are readable (the check can see them: it is not blind).
    const before = await readableTraces(page, [...viewed])
    expect(before.localStorage).toContain(totals.year.replace(/\D/g, ''))

    await page.getByRole('button', { name: 'Logout' }).click()
    await expect(page).toHaveURL(/\/login$/)
    const urls = [...viewed]
    const secrets = [
      'createdAt',
      owner,
      '김사장',
      '역삼점',
      '선릉점',
      '대치점',
      totals.year,
      totals.year.replace(/\D/g, ''),
      totals.month,
    ]
    await expectNothingOfThePreviousUser(page, urls, secrets)

    // The browser restarts on the same profile: its disk cache and storage are read back.
    await context.close()
    context = await launch()
    const restarted = context.pages()[0] ?? (await context.newPage())
    await restarted.goto('/login')
    await expect(restarted.getByLabel('휴대폰 번호')).toBeVisible()
    await expectNothingOfThePreviousUser(restarted, urls, secrets)
  } finally {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }
})
