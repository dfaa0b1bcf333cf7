// Another provider's usage answer, JSON in a layout of its own: the bucketing worker reads it exactly
// with its exact path (src/workers/bucket-exact.ts), which it loads only for such an answer (decision
// 118): our own server's answers never fetch it (budget.spec.ts).
import { expect, test } from './fixtures.ts'
import { figuresSettled, signIn, won } from './helpers.ts'

// The usage answers are stood in for here; a service worker would take the requests out of reach.
test.use({ serviceWorkers: 'block' })

test('JSON in another layout is bucketed exactly in the worker, its exact path loaded on demand', async ({
  page,
}) => {
  await signIn(page)
  await figuresSettled(page)
  // A year not on the device, answered as another provider might: spaces, keys in another order,
  // an instant with an offset.
  const year = new Date().getFullYear() - 2
  const usages = [
    { amount: 4000, createdAt: `${year}-03-01T09:15:00+09:00` },
    { amount: 3500, createdAt: `${year}-07-07T12:00:00.000Z` },
    { amount: -500, createdAt: `${year}-07-08T01:00:00.000Z` },
  ]
  await page.route(/\/api\/v0\/store\/\d+\/usage\?/, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ usages }, null, 2),
    }),
  )
  // In the worker: the main thread never loads the bucketing itself (its fallback, bucket-feed).
  const scripts: string[] = []
  page.on('response', (response) => scripts.push(new URL(response.url()).pathname))
  const exactPath = page.waitForResponse((response) => /\/bucket-exact-[\w-]+\.js$/.test(response.url()))
  await page.goto(`/?year=${year}&month=3`)
  await exactPath
  await expect(page.getByTestId('year-total')).toHaveText(won(7000))
  await expect(page.getByTestId('month-total')).toHaveText(won(4000))
  expect(scripts.filter((script) => /bucket-feed/.test(script))).toEqual([])
  expect(scripts.filter((script) => /bucket\.worker/.test(script))).toHaveLength(1)
})
