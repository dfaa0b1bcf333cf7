import { expect, test } from './fixtures.ts'

test('opening / while logged out lands on /login with the phone field', async ({ page }) => {
  await page.goto('/')
  await expect(page).toHaveURL(/\/login$/)
  await expect(page.getByPlaceholder('01012345678')).toBeVisible()
})
