// Hidden money (docs/product.md §15), against the real server: the owner hides won amounts from a staff
// member whose sales screen is open; that screen loses every won amount without a reload (its held call
// is refused, the app reads the profile again and forgets the store's kept figures), and shows the
// machines' turns under a short notice instead of the totals and charts. The store is e2e-only
// (machines-data.ts).
import type { APIRequestContext, BrowserContext } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import { accessToken, figuresSettled, moneyOwner, moneyStaff, persistedCache, signIn } from './helpers.ts'

const runId = Date.now().toString(36)

async function asOwner(request: APIRequestContext, context: BrowserContext) {
  const headers = { authorization: `Bearer ${await accessToken(context)}` }
  const profile = await request.get('/api/v0/user', { headers })
  const { stores } = (await profile.json()) as { stores: { id: number }[] }
  const storeId = (stores[0] as { id: number }).id
  return { headers, storeId }
}

test('the owner hides money from a staff member: their open sales screen loses the won amounts without a reload', async ({
  page,
  request,
  browser,
  baseURL,
}) => {
  test.setTimeout(90_000)
  // The owner, in a browser of their own: a device and a sale of a distinctive amount on washer W1.
  const ownerPage = await browser.newPage({ baseURL })
  await signIn(ownerPage, moneyOwner)
  await expect
    .poll(async () => (await ownerPage.context().cookies()).some((c) => c.name === 'accessToken'))
    .toBe(true)
  const { headers, storeId } = await asOwner(request, ownerPage.context())
  await ownerPage.close()
  const added = await request.post(`/api/v0/store/${storeId}/devices`, { headers, data: { name: '결제기' } })
  const { pairingCode } = (await added.json()) as { pairingCode: string }
  const paired = await request.post('/api/v0/device/pair', { data: { code: pairingCode } })
  const { key } = (await paired.json()) as { key: string }
  const sold = await request.post('/api/v0/device/sales', {
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': `money-${runId}` },
    data: {
      sales: [
        {
          id: `${runId}-1`,
          amount: 43_210,
          machine: 'W1',
          method: 'card',
          createdAt: new Date().toISOString(),
        },
      ],
    },
  })
  expect(sold.status(), await sold.text()).toBe(200)

  // The staff member's screen, open, with the amounts.
  await signIn(page, moneyStaff)
  await figuresSettled(page)
  await expect(page.getByTestId('month-total')).toHaveText('43,210원')
  const machine = page.locator('[data-testid="machine"][data-machine="W1"]')
  await expect(machine.getByTestId('machine-sum')).toHaveText('43,210원')
  await page.evaluate(() => {
    ;(window as unknown as { notReloaded: boolean }).notReloaded = true
  })

  const members = await request.get(`/api/v0/store/${storeId}/members`, { headers })
  const staff = ((await members.json()) as { members: { userId: number; role: string }[] }).members.find(
    (member) => member.role === 'staff',
  )
  const hidden = await request.patch(`/api/v0/store/${storeId}/members/${staff?.userId}`, {
    headers,
    data: { showsMoney: false },
  })
  expect(hidden.status()).toBe(204)

  // Without a reload: the notice, the machine's turns, and no won amount anywhere on the screen.
  await expect(page.getByTestId('money-hidden')).toBeVisible({ timeout: 15_000 })
  await expect(page.getByRole('region', { name: /^\d{1,2}월 기계별 사용$/ })).toBeVisible()
  await expect(machine).toContainText('1회')
  await expect(page.getByTestId('machine-sum')).toHaveCount(0)
  await expect(page.locator('body')).not.toContainText('원')
  await expect(page.getByTestId('month-total')).toHaveCount(0)
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
  // The store's figures are forgotten on the device too.
  await expect
    .poll(async () => JSON.stringify((await persistedCache(page))?.clientState.queries ?? []))
    .not.toContain('43210')
})
