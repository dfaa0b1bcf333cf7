import type { Page } from '@playwright/test'
import { readBudget, screenSize } from '../../scripts/bundle-size.ts'
import { expect, test } from './fixtures.ts'
import { figuresSettled, serviceWorkerReady, signIn } from './helpers.ts'

// The bundle budget is read from the build manifest; this checks the manifest tells the whole truth:
// every script the browser fetches for a screen is one the budget counts. (The service worker's own
// scripts run in the background and are left out.)
const webDir = () => {
  const dir = process.env.E2E_WEB_DIR
  if (!dir) throw new Error('E2E_WEB_DIR is not set')
  return dir
}

function recordScripts(page: Page) {
  const scripts = new Set<string>()
  page.on('response', (response) => {
    const { pathname } = new URL(response.url())
    if (pathname.endsWith('.js') && !/^\/(sw|push-sw|workbox-[\w-]+)\.js$/.test(pathname))
      scripts.add(pathname.slice(1))
  })
  return scripts
}

const counted = (route: '/login' | '/ with its machines section') => {
  const budget = readBudget()
  return screenSize(webDir(), budget.routes[route] ?? [], budget.loadedAtStart).files.filter((file) =>
    file.endsWith('.js'),
  )
}

test('the login screen downloads only the scripts its budget counts, and neither uPlot nor the worker', async ({
  page,
}) => {
  const scripts = recordScripts(page)
  await page.goto('/login')
  await serviceWorkerReady(page)
  await page.waitForLoadState('networkidle')
  expect([...scripts].filter((file) => !counted('/login').includes(file))).toEqual([])
  expect([...scripts].some((file) => /bucket\.worker/.test(file))).toBe(false)
  const uplotLoaded = await page.evaluate(() => document.querySelector('.uplot') !== null)
  expect(uplotLoaded).toBe(false)
})

test('the sales screen downloads only the scripts its budget counts', async ({ page, context }) => {
  await signIn(page)
  await figuresSettled(page)
  const fresh = await context.newPage()
  const scripts = recordScripts(fresh)
  // A year not yet kept on the device, so that the figures are fetched and bucketed in the worker: not
  // last year, which the first page fetched for its comparisons and may have kept already.
  // The screen never goes network-idle (its live loop holds a call open): its first changes call is
  // asked once the year is loaded and drawn, after every script the screen needs.
  const following = fresh.waitForRequest((request) => request.url().includes('/usage/changes'))
  await fresh.goto(`/?year=${new Date().getFullYear() - 2}&month=6`)
  await figuresSettled(fresh)
  await following
  expect([...scripts].some((file) => /bucket\.worker/.test(file))).toBe(true)
  // The machines section comes after the figures, in its own chunk: counted with the screen.
  expect([...scripts].filter((file) => !counted('/ with its machines section').includes(file))).toEqual([])
})
