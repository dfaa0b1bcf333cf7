import type { Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import {
  cookiesBesideKnownDevice,
  logMark,
  noStores,
  owner,
  readCode,
  recordDialogs,
  signIn,
} from './helpers.ts'

test('signs in with a phone number and the code from the SMS, and lands on the sales screen', async ({
  page,
}) => {
  const dialogs = recordDialogs(page)
  await page.goto('/')
  await expect(page).toHaveURL(/\/login$/)
  await expect(page.getByRole('img', { name: 'Logo' })).toBeVisible()
  const phone = page.getByLabel('휴대폰 번호')
  const code = page.getByLabel('인증번호')
  const request = page.getByRole('button', { name: 'get verification code' })
  const login = page.getByRole('button', { name: 'Login' })
  await expect(phone).toHaveAttribute('placeholder', '01012345678')
  await expect(code).toHaveAttribute('placeholder', '0000')
  await expect(request).toBeDisabled()
  await expect(code).toBeDisabled()
  await expect(login).toBeDisabled()

  await phone.fill('010-1234-5678')
  await expect(request).toBeEnabled()
  const mark = logMark()
  await phone.press('Enter')
  await expect(page.getByRole('button', { name: /^0[23] : \d\d$/ })).toBeVisible()
  await expect(phone).toBeDisabled()
  await expect(code).toBeFocused()
  await expect(page.getByRole('button', { name: /^0[23] : \d\d$/ })).toHaveText(/^02 : 5\d$/, {
    timeout: 3000,
  })

  await code.fill(await readCode(owner, mark))
  await code.press('Enter')
  await expect(page).toHaveURL(/\/$/)
  await expect(page.getByRole('button', { name: /매장: 행복빨래방 역삼점/ })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Logout' })).toBeVisible()
  // The signed-in header replaces the login screen's: one logo, not two.
  await expect(page.getByRole('img', { name: 'Logo' })).toHaveCount(1)
  expect(dialogs).toEqual([])
  const cookies = (await page.context().cookies()).map((cookie) => cookie.name).sort()
  // knownDevice: the server's credential that this browser has signed in to the number (HttpOnly).
  expect(cookies).toEqual(['accessToken', 'knownDevice', 'refreshRetryKey', 'refreshToken', 'signInId'])
})

test('the buttons are 360 by 30 px: blue when enabled, grey with a not-allowed cursor when not', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/login')
  const request = page.getByRole('button', { name: 'get verification code' })
  expect(await request.boundingBox()).toMatchObject({ width: 360, height: 30 })
  const disabled = await request.evaluate((el) => getComputedStyle(el))
  expect(disabled.cursor).toBe('not-allowed')
  expect(disabled.backgroundColor).toBe('rgb(228, 232, 238)')
  await page.getByLabel('휴대폰 번호').fill('01012345678')
  const enabled = await request.evaluate((el) => getComputedStyle(el).backgroundColor)
  // #1668dc: a blue that white text reads on at 5.2:1 (WCAG AA asks 4.5:1).
  expect(enabled).toBe('rgb(22, 104, 220)')
})

test("refuses an account without stores: 'You do not have permission', and stays signed out", async ({
  page,
}) => {
  const dialogs = recordDialogs(page)
  await signIn(page, noStores)
  await expect.poll(() => dialogs).toEqual(['You do not have permission'])
  await expect(page).toHaveURL(/\/login$/)
  await expect(page.getByLabel('휴대폰 번호')).toBeEnabled()
  // The sign-in itself succeeded, so the known-device credential stays (helpers.ts).
  expect(await cookiesBesideKnownDevice(page.context())).toEqual([])
  await page.goto('/')
  await expect(page).toHaveURL(/\/login$/)
})

test("a wrong code shows the server's message and the login screen starts again", async ({ page }) => {
  const dialogs = recordDialogs(page)
  await page.goto('/login')
  await page.getByLabel('휴대폰 번호').fill(owner)
  const mark = logMark()
  await page.getByRole('button', { name: 'get verification code' }).click()
  const right = await readCode(owner, mark)
  await page.getByLabel('인증번호').fill(right === '0000' ? '0001' : '0000')
  await page.getByRole('button', { name: 'Login' }).click()
  await expect.poll(() => dialogs).toEqual(['인증번호가 일치하지 않습니다.'])
  await expect(page.getByRole('button', { name: 'get verification code' })).toBeVisible()
  await expect(page.getByLabel('휴대폰 번호')).toHaveValue('')
})

test('guards both ways: / needs a sign-in, /login is for signed-out users only', async ({ page }) => {
  await page.goto('/')
  await expect(page).toHaveURL(/\/login$/)
  await expect(page.getByPlaceholder('01012345678')).toBeVisible()
  await signIn(page)
  await expect(page).toHaveURL(/\/$/)
  await page.goto('/login')
  await expect(page).toHaveURL(/\/$/)
  await expect(page.getByTestId('year-total')).toBeVisible()
})

/** Signs in on the login screen already shown (signIn in helpers.ts opens a bare /login first). */
async function signInHere(page: Page, phone = owner) {
  await page.getByLabel('휴대폰 번호').fill(phone)
  const mark = logMark()
  await page.getByRole('button', { name: 'get verification code' }).click()
  await page.getByLabel('인증번호').fill(await readCode(phone, mark))
  await page.getByRole('button', { name: 'Login' }).click()
}

test('a signed-out visit to a page signs in and returns to it; a target off the app lands on the sales screen', async ({
  page,
  baseURL,
}) => {
  const dialogs = recordDialogs(page)
  await page.goto('/alerts?store=2')
  await expect(page).toHaveURL(/\/login\?redirect=/)
  expect(new URL(page.url()).searchParams.get('redirect')).toBe('/alerts?store=2')
  await signInHere(page)
  await expect(page).toHaveURL(/\/alerts\?store=2$/)
  await expect(page.getByRole('heading', { name: '알림', level: 1 })).toBeVisible()
  // Signed in, the login screen sends to the sales screen, whatever its address names.
  await page.goto(`/login?redirect=${encodeURIComponent('https://evil.example/')}`)
  await expect(page).toHaveURL(`${baseURL}/`)

  await page.getByRole('button', { name: 'Logout' }).click()
  await expect(page).toHaveURL(/\/login$/)
  // Never to another origin, however the address is made to look like a path.
  for (const target of [
    '//evil.example/alerts',
    'https://evil.example/',
    '/\\evil.example',
    '/..//evil.example',
  ]) {
    await page.goto(`/login?redirect=${encodeURIComponent(target)}`)
    await signInHere(page)
    await expect(page).toHaveURL(`${baseURL}/`)
    await expect(page.getByTestId('year-total')).toBeVisible()
    await page.getByRole('button', { name: 'Logout' }).click()
    await expect(page).toHaveURL(/\/login$/)
  }
  expect(
    dialogs.filter(
      (message) => message !== 'Do you want to log out?' && message !== 'You have been logged out.',
    ),
  ).toEqual([])
})

test('an unknown path shows a not-found view with a way home', async ({ page }) => {
  await page.goto('/no/such/page')
  await expect(page.getByRole('heading', { name: '페이지를 찾을 수 없습니다' })).toBeVisible()
  await page.getByRole('link', { name: '처음 화면으로' }).click()
  await expect(page).toHaveURL(/\/login$/)
})

test.describe('before any script has run', () => {
  test.use({ javaScriptEnabled: false })

  test('the login screen already shows its header with the logo', async ({ page }) => {
    await page.goto('/login')
    await expect(page.getByRole('banner').getByRole('img', { name: 'Logo' })).toBeVisible()
    // Drawn by the page itself (inline SVG): an image file would be a document of its own to build first.
    await expect(page.locator('.shell-header > svg[role="img"][aria-label="Logo"]')).toBeVisible()
    await expect(page.locator('.shell-header img')).toHaveCount(0)
  })
})

test('the logo painted from the page itself stays when the app starts, rather than being drawn again', async ({
  page,
}) => {
  await page.addInitScript(() => {
    const removed: string[] = []
    Object.assign(window, { removedLogos: removed })
    new MutationObserver((mutations) => {
      // The logo as index.html draws it (inline SVG) and as the app's header does (an image).
      for (const mutation of mutations)
        for (const node of mutation.removedNodes)
          if (
            node instanceof Element &&
            node.matches(
              'img[alt="Logo"], svg[aria-label="Logo"], :has(img[alt="Logo"]), :has(svg[aria-label="Logo"])',
            )
          )
            removed.push(node.outerHTML)
    }).observe(document, { childList: true, subtree: true })
  })
  await page.goto('/login')
  await expect(page.getByLabel('휴대폰 번호')).toBeEnabled()
  expect(await page.evaluate(() => (window as unknown as { removedLogos: string[] }).removedLogos)).toEqual(
    [],
  )
})
