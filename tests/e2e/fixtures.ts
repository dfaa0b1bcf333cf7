import { test as base } from '@playwright/test'

// The server's address is known only once global setup has started it.
export const test = base.extend({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring.
  baseURL: async ({}, use) => {
    const url = process.env.E2E_BASE_URL
    if (!url) throw new Error('E2E_BASE_URL is not set: run the tests through playwright.config.ts')
    await use(url)
  },
})

export { expect } from '@playwright/test'
