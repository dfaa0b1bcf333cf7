import path from 'node:path'
import { defineConfig } from '@playwright/test'
import { checkChrome, chromeArgs, chromePath } from './tests/e2e/browser.ts'

// End-to-end tests drive Debian's Chromium against the built app served by the real server, which
// tests/e2e/global-setup.ts starts on a free port.
checkChrome()

// Each build's run keeps its own results (test-results/e2e-<build>/), so one never wipes the other's.
const build = path.basename(process.env.E2E_BUILD_DIR ?? 'dist')

// The Preact build shares every module with the React one but the renderer: its run proves that every
// screen renders and works (signing in, the sales screen, comparisons, stores, devices, alerts, live
// figures, accessibility, screenshots). What lies below the renderer (the service worker, offline and
// kept figures, tokens and the session's end, switching stores' caches, the bucketing budget) is the
// same code in both builds and is proven on the React build only, to keep CI under 30 minutes.
// The 알림톡's delivery (messages.spec.ts) and the hidden money's live reaction (team-money.spec.ts) are
// the server's and the shared loop's; the screens they show are proven on Preact by alerts.spec.ts,
// machines.spec.ts and team.spec.ts. The figures checked against a reference from the server's records
// (comparisons.spec.ts), the worker's exact path (exact-json.spec.ts) and the quiet store's statistics
// (quiet-store.spec.ts) are the shared domain code's; the screens showing them are proven on Preact by
// sales.spec.ts, stores.spec.ts and the a11y and screenshot specs.
const belowTheRenderer = [
  'budget.spec.ts',
  'comparisons.spec.ts',
  'exact-json.spec.ts',
  'kept-totals.spec.ts',
  'logout-traces.spec.ts',
  'messages.spec.ts',
  'offline.spec.ts',
  'pwa.spec.ts',
  'quiet-store.spec.ts',
  'session.spec.ts',
  'store-switch.spec.ts',
  'team-money.spec.ts',
]

export default defineConfig({
  testDir: 'tests/e2e',
  testIgnore: build === 'dist-preact' ? belowTheRenderer : [],
  globalSetup: './tests/e2e/global-setup.ts',
  outputDir: `test-results/e2e-${build}`,
  // One server with fixed demo accounts is shared, and a new code replaces the previous one, so
  // tests that sign in must not race each other.
  workers: 1,
  retries: 0,
  // Headroom over the slowest test alone (about 30 s on a loaded 2-core machine), not a pace to keep.
  timeout: 45_000,
  expect: { timeout: 10_000 },
  forbidOnly: true,
  reporter: [['list']],
  use: {
    locale: 'ko-KR',
    timezoneId: 'Asia/Seoul',
    trace: 'retain-on-failure',
    launchOptions: { executablePath: chromePath, args: chromeArgs },
  },
})
