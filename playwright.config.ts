import { existsSync } from 'node:fs'
import { defineConfig } from '@playwright/test'

// End-to-end tests drive Debian's Chromium (test tools cannot download browsers here) against the
// built app served by the real server, which tests/e2e/global-setup.ts starts on a free port.
const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium'
if (!existsSync(chromePath)) {
  throw new Error(
    `No Chromium at ${chromePath}. Install one with \`sudo apt-get install -y chromium\` (Debian/Ubuntu), ` +
      'or set CHROME_PATH to a Chromium or Chrome executable.',
  )
}

export default defineConfig({
  testDir: 'tests/e2e',
  globalSetup: './tests/e2e/global-setup.ts',
  outputDir: 'test-results/e2e',
  // One server with fixed demo accounts is shared, and a new code replaces the previous one, so
  // tests that sign in must not race each other.
  workers: 1,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  forbidOnly: true,
  reporter: [['list']],
  use: {
    locale: 'ko-KR',
    timezoneId: 'Asia/Seoul',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: chromePath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
})
