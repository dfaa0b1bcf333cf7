// index.html's login form, shown before the app's code has arrived (on 3G a first visit waits about
// 3 s for it): the phone number can be typed at once, and the app's form takes over what was typed,
// the focus and the caret, in the same place on screen. A signed-in visitor never sees it.
import type { Page, Route } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import { logMark, readCode } from './helpers.ts'

/** Holds back the app's start chunk until the returned function lets it through. */
async function holdAppCode(page: Page) {
  let held: Route | undefined
  let arrived: () => void = () => {}
  const asked = new Promise<void>((resolve) => {
    arrived = resolve
  })
  await page.route(/\/assets\/app-[\w-]+\.js$/, (route) => {
    held = route
    arrived()
  })
  return async () => {
    await asked
    await held?.continue()
  }
}

for (const width of [360, 1280]) {
  test(`at ${width} px the number can be typed before the app runs; the app's form takes it over and signs in`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 800 })
    const letAppRun = await holdAppCode(page)
    await page.goto('/login', { waitUntil: 'commit' })

    const early = page.locator('.login-shell')
    await expect(early.getByLabel('휴대폰 번호')).toBeVisible()
    await expect(early.getByLabel('휴대폰 번호')).toBeEditable()
    await expect(early.getByRole('button', { name: 'get verification code' })).toBeDisabled()
    await expect(early.getByLabel('인증번호')).toBeDisabled()
    const earlyBox = await early.getByLabel('휴대폰 번호').boundingBox()
    await early.getByLabel('휴대폰 번호').pressSequentially('0101234')

    await letAppRun()
    await expect(early).toHaveCount(0)
    const phone = page.getByLabel('휴대폰 번호')
    await expect(phone).toHaveValue('0101234')
    await expect(phone).toBeFocused()
    // The same place on screen: nothing moves when the app's form takes over.
    expect(await phone.boundingBox()).toEqual(earlyBox)

    await page.keyboard.type('5678')
    await expect(phone).toHaveValue('01012345678')
    const mark = logMark()
    await page.getByRole('button', { name: 'get verification code' }).click()
    const code = await readCode('01012345678', mark)
    await expect(page.getByLabel('인증번호')).toBeFocused()
    await page.getByLabel('인증번호').fill(code)
    await page.getByRole('button', { name: 'Login' }).click()
    await expect(page.getByTestId('year-total')).toBeVisible()
  })
}

test("the code asked for before the app runs (the number typed in full, then Enter) is asked for by the app's form", async ({
  page,
}) => {
  const letAppRun = await holdAppCode(page)
  await page.goto('/login', { waitUntil: 'commit' })
  const early = page.locator('.login-shell')
  // Shown (pressSequentially, unlike fill, does not wait for that: keys sent to the still hidden field
  // would be lost).
  await expect(early.getByLabel('휴대폰 번호')).toBeVisible()
  await expect(early.getByRole('button', { name: 'get verification code' })).toBeDisabled()
  await early.getByLabel('휴대폰 번호').pressSequentially('01012345678')
  await expect(early.getByRole('button', { name: 'get verification code' })).toBeEnabled()
  const mark = logMark()
  await page.keyboard.press('Enter')

  await letAppRun()
  await expect(early).toHaveCount(0)
  const code = await readCode('01012345678', mark)
  await expect(page.getByLabel('인증번호')).toBeFocused()
  await expect(page.getByRole('button', { name: /^\d\d : \d\d$/ })).toBeDisabled()
  await page.getByLabel('인증번호').fill(code)
  await page.getByRole('button', { name: 'Login' }).click()
  await expect(page.getByTestId('year-total')).toBeVisible()
})
