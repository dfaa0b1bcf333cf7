import { availableParallelism } from 'node:os'
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { alertExampleDefines } from './src/features/alerts/alert-examples.ts'

// Server tests run on a fresh in-memory PGlite, and once more on PostgreSQL when DATABASE_URL is set
// (each test file creates and drops its own database there). Web tests run in happy-dom.
const postgres: TestProjectInlineConfiguration[] = process.env.DATABASE_URL
  ? [
      {
        extends: true,
        test: {
          name: 'server:postgres',
          include: ['tests/server/**/*.test.ts'],
          // Only about the embedded database, whatever TEST_DB says: once is enough.
          exclude: [
            // What these assert is HTTP, TLS, configuration, a gateway's protocol or a push service's,
            // never what a database answers: the database only keeps their rows, as on PGlite.
            'tests/server/config.test.ts',
            'tests/server/https.test.ts',
            'tests/server/messages/config.test.ts',
            'tests/server/messages/solapi.test.ts',
            'tests/server/phone.test.ts',
            'tests/server/push/web-push.test.ts',
            'tests/server/sms.test.ts',
            'tests/server/trust-proxy.test.ts',
            'tests/server/web.test.ts',
            'tests/server/db/lock.test.ts',
            'tests/server/db/snapshots.test.ts',
            'tests/server/db/embedded.test.ts',
            'tests/server/db/watchdog.test.ts',
            // These read the repository's files, never a database: once is enough.
            'tests/server/architecture.test.ts',
            'tests/server/docs.test.ts',
            'tests/server/db/no-in-lists.test.ts',
            // These run their children on the embedded database whatever the project: once is enough.
            'tests/server/db/snapshot-memory.test.ts',
            'tests/server/process.test.ts',
          ],
          env: { TEST_DB: 'postgres' },
          globalSetup: ['tests/server/global-setup.ts'],
        },
      },
    ]
  : []

export default defineConfig({
  // As the build defines them (vite.config.ts): the alerts screen's examples, worded by domain/alert-texts.ts.
  define: { __APP_VERSION__: JSON.stringify('test'), ...alertExampleDefines() },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'server:pglite',
          include: ['tests/server/**/*.test.ts'],
          exclude: ['tests/server/**/*.postgres.test.ts'],
          env: { TEST_DB: 'pglite' },
          globalSetup: ['tests/server/global-setup.ts'],
        },
      },
      ...postgres,
      {
        extends: true,
        test: { name: 'device', include: ['tests/device/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'domain', include: ['tests/domain/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['tests/web/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          environmentOptions: { happyDOM: { url: 'http://localhost:3000/' } },
          setupFiles: ['tests/web/setup.ts'],
        },
      },
    ],
    // Vitest's default (cores - 1) runs one file at a time on a 2-core machine such as CI's, and most
    // of a server test's time is spent waiting on its database or child process: two files at a time
    // take CI's Vitest run from about 16 to about 9 minutes.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
