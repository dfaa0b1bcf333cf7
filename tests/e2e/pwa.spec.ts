import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { BrowserContext } from '@playwright/test'
import { chromeArgs, chromePath } from './browser.ts'
import { expect, test } from './fixtures.ts'
import { checkForUpdate, deployNewVersion, serviceWorkerReady } from './helpers.ts'

test('Chromium finds nothing in the way of installing the app', async ({ playwright, baseURL }) => {
  // Installing needs a real profile: Playwright's usual contexts count as incognito.
  const profile = mkdtempSync(path.join(tmpdir(), 'laundry-profile-'))
  const context = await playwright.chromium.launchPersistentContext(profile, {
    executablePath: chromePath,
    args: chromeArgs,
    baseURL,
  })
  try {
    await checkInstallable(context)
  } finally {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }
})

async function checkInstallable(context: BrowserContext) {
  const page = context.pages()[0] ?? (await context.newPage())
  await page.goto('/login')
  await serviceWorkerReady(page)
  const cdp = await context.newCDPSession(page)
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors')
  expect(installabilityErrors).toEqual([])
  const { errors, data } = await cdp.send('Page.getAppManifest')
  expect(errors).toEqual([])
  const manifest = JSON.parse(data ?? '{}')
  expect(manifest).toMatchObject({
    lang: 'ko',
    display: 'standalone',
    start_url: '/',
    theme_color: '#4db8ff',
  })
  expect(manifest.short_name).toMatch(/[가-힣]/)
  const sizes = manifest.icons.map(
    (icon: { sizes: string; purpose?: string }) => `${icon.sizes} ${icon.purpose ?? 'any'}`,
  )
  expect(sizes).toEqual(expect.arrayContaining(['192x192 any', '512x512 any', '512x512 maskable']))
  for (const icon of manifest.icons as { src: string; sizes: string }[]) {
    const response = await page.request.get(icon.src)
    expect(response.headers()['content-type']).toBe('image/png')
  }
}

test('a new version deployed while the app is open is announced, and accepting reloads into it', async ({
  page,
}) => {
  await page.goto('/login')
  await serviceWorkerReady(page)
  await page.reload()
  await page.getByLabel('휴대폰 번호').fill('01012345678')

  const restore = deployNewVersion()
  try {
    await checkForUpdate(page)
    const prompt = page.getByRole('alertdialog', { name: '새 버전이 있습니다.' })
    await expect(prompt).toBeVisible()
    // Nothing was swapped silently: the old page, with what was typed, is still there.
    await expect(page.getByLabel('휴대폰 번호')).toHaveValue('01012345678')
    expect(await page.locator('meta[name="app-build"]').count()).toBe(0)

    await prompt.getByRole('button', { name: '새로고침' }).click()
    await expect(page.locator('meta[name="app-build"]')).toHaveAttribute('content', '2')
    await expect(prompt).toBeHidden()
  } finally {
    restore()
  }
})
