import { test as base, expect } from '@playwright/test'

export const test = base.extend<{ pageProblems: string[] }>({
  // The server's address is known only once global setup has started it.
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring.
  baseURL: async ({}, use) => {
    const url = process.env.E2E_BASE_URL
    if (!url) throw new Error('E2E_BASE_URL is not set: run the tests through playwright.config.ts')
    await use(url)
  },
  // Every test fails if its page throws, or if the Content-Security-Policy blocks anything.
  pageProblems: [
    async ({ page }, use) => {
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`))
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) {
          problems.push(`csp: ${message.text()}`)
        }
      })
      await use(problems)
      expect(problems).toEqual([])
    },
    { auto: true },
  ],
})

export { expect }
