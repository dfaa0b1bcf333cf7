// Builds the real app for a test file on a fresh database: in-memory PGlite, or (TEST_DB=postgres) a
// new database on the PostgreSQL of DATABASE_URL that `close()` drops again. Both start as a copy of
// the migrated empty database global-setup.ts made once for the run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, inject } from 'vitest'
import { createPostgresDatabase } from '../../scripts/postgres-database.ts'
import type { AppOptions } from '../../server/app.ts'
import { buildApp } from '../../server/app.ts'
import { readConfig } from '../../server/config.ts'
import { type Database, openDatabase } from '../../server/db/client.ts'
import type { SmsRetry } from '../../server/sign-in/sms.ts'

export async function openTestDatabase(): Promise<Database> {
  if (process.env.TEST_DB !== 'postgres') {
    // A test's database is small: a 16 MB page cache (128 MB by default, all of it resident from the
    // start) takes about half a second off each of the suite's hundreds of opens.
    return openDatabase({
      pgliteDir: null,
      loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]),
      sharedBuffers: '16MB',
    })
  }
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) throw new Error('TEST_DB=postgres needs DATABASE_URL')
  const created = await createPostgresDatabase(adminUrl, 'laundry_test', inject('postgresTemplate'))
  const database = await openDatabase({ databaseUrl: created.url })
  postgresUrls.set(database.db, created.url)
  return {
    ...database,
    close: async () => {
      await database.close()
      await created.drop()
    },
  }
}

/** A clock the test moves by hand. */
export function testClock(start = '2026-03-15T03:00:00.000Z') {
  let current = new Date(start).getTime()
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms
    },
    set(instant: string = start) {
      current = new Date(instant).getTime()
    },
  }
}

/** An SMS sender that keeps what it was asked to send. */
export function capturedSms() {
  const sent: { to: string; text: string }[] = []
  return {
    sent,
    async send(to: string, text: string) {
      sent.push({ to, text })
    },
    clear() {
      sent.length = 0
    },
    /** The code in the last message to `phone`. */
    lastCode(phone: string) {
      const message = sent.findLast((m) => m.to === phone)
      const code = message?.text.match(/\b(\d{4})\b/)?.[1]
      if (!code) throw new Error(`no code was sent to ${phone}`)
      return code
    },
  }
}

/**
 * Empties every table, so tests in one file can share an app (starting a database takes a second), and
 * forgets the sign-in refusals and the view of every store the app kept of it.
 */
export async function resetDatabase(app: {
  db: Database['db']
  otp?: { forgetRefusals(): void }
  storeViews?: { forget(): void }
}) {
  await app.db.execute(
    sql`truncate users, stores, memberships, usages, usage_years, usage_changes, login_codes, phone_locks, rate_events, sign_ins, refresh_tokens, known_device_epochs, devices, device_pairings, device_batches, push_subscriptions, alert_settings, alerts, message_failures restart identity cascade`,
  )
  app.otp?.forgetRefusals()
  // The view of every store is of the emptied database's stores (their ids start again).
  app.storeViews?.forget()
}

export interface TestAppOptions {
  env?: Record<string, string>
  logStream?: { write(line: string): void }
  clock?: ReturnType<typeof testClock>
  sms?: ReturnType<typeof capturedSms>
  smsRetry?: SmsRetry
  /**
   * Run as a second instance on another test app's database: on PostgreSQL through a pool of its
   * own, on PGlite (one process's database) on the same one. Closing this app leaves it in place.
   */
  sameDatabaseAs?: { db: Database['db'] }
  /** The live changes' safety poll period. */
  livePollMs?: number
  /** How often a streamed held call with nothing to say sends a comment. */
  streamHeartbeatMs?: number
  /** How long an answer's output may stay queued with no byte leaving before its connection goes. */
  sendStallMs?: number
  /** How pushes go out (a fake transport, or web-push trusting a local push service). */
  pushTransport?: AppOptions['pushTransport']
  /** How a 알림톡 that failed is tried again. */
  messageRetry?: AppOptions['messageRetry']
}

/** The PostgreSQL address of each test database, so a second instance can open its own pool. */
const postgresUrls = new WeakMap<Database['db'], string>()
const databases = new WeakMap<Database['db'], Database>()

/** The PostgreSQL address of a test app's database (TEST_DB=postgres), for a connection of a test's own. */
export function postgresUrlOf(app: { db: Database['db'] }): string {
  const url = postgresUrls.get(app.db)
  if (!url) throw new Error('not a PostgreSQL test database')
  return url
}

async function secondInstanceDatabase(of: { db: Database['db'] }): Promise<Database> {
  const url = postgresUrls.get(of.db)
  if (url) return openDatabase({ databaseUrl: url })
  const database = databases.get(of.db)
  if (!database) throw new Error('not a test app database')
  return { ...database, close: async () => {} }
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>

export async function createTestApp({
  env = {},
  logStream,
  clock,
  smsRetry,
  sms,
  sameDatabaseAs,
  livePollMs,
  streamHeartbeatMs,
  sendStallMs,
  pushTransport,
  messageRetry,
}: TestAppOptions = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'laundry-test-'))
  const config = readConfig({
    DATA_DIR: dataDir,
    WEB_DIR: path.join(dataDir, 'no-web-app'),
    LOG_LEVEL: logStream ? 'info' : 'silent',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    ...env,
  })
  const database = sameDatabaseAs ? await secondInstanceDatabase(sameDatabaseAs) : await openTestDatabase()
  databases.set(database.db, database)
  const app = await buildApp({
    config,
    database,
    logStream,
    now: clock?.now,
    sms,
    smsRetry,
    livePollMs,
    streamHeartbeatMs,
    sendStallMs,
    pushTransport,
    messageRetry,
    // Tests evaluate the alert rules themselves, at their clock's instants.
    alertsEveryMs: 0,
  })
  app.addHook('onClose', () => rmSync(dataDir, { recursive: true, force: true }))
  return app
}

/**
 * Two instances on one database for a file's tests, as several servers share one PostgreSQL (there,
 * each through a pool of its own): `one` made with `options`, `two` with `options` and `second` over
 * them. Hands both to `opened` once they are up; closes both (`two` first) after the file's tests.
 */
export function twoInstances(
  options: Omit<TestAppOptions, 'sameDatabaseAs'> & { second?: Omit<TestAppOptions, 'sameDatabaseAs'> },
  opened: (apps: { one: TestApp; two: TestApp }) => unknown,
) {
  const apps: TestApp[] = []
  beforeAll(async () => {
    const { second, ...first } = options
    const one = await createTestApp(first)
    apps.push(one)
    const two = await createTestApp({ ...first, ...second, sameDatabaseAs: one })
    apps.push(two)
    await opened({ one, two })
  })
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close()
  })
}

/** Runs `use` with another instance on `of`'s database (made with `options`), and closes it after. */
export async function withAnotherInstance<T>(
  of: { db: Database['db'] },
  options: Omit<TestAppOptions, 'sameDatabaseAs'>,
  use: (second: TestApp) => PromiseLike<T>,
): Promise<T> {
  const second = await createTestApp({ ...options, sameDatabaseAs: of })
  try {
    return await use(second)
  } finally {
    await second.close()
  }
}

/** Requests a code for `phone` and signs in with it; returns the token pair. */
export async function signIn(app: TestApp, sms: ReturnType<typeof capturedSms>, phone: string) {
  const requested = await app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone } })
  if (requested.statusCode !== 200) throw new Error(`code request: ${requested.statusCode} ${requested.body}`)
  const signed = await app.inject({
    method: 'POST',
    url: '/api/v0/user/sign',
    payload: { phone, code: sms.lastCode(phone) },
  })
  if (signed.statusCode !== 200) throw new Error(`sign-in: ${signed.statusCode} ${signed.body}`)
  return signed.json().token as { access: string; refresh: string }
}

export const bearer = (access: string) => ({ authorization: `Bearer ${access}` })

/**
 * One app for a block of tests (starting a database takes a second), emptied before each test, when
 * the clock is set back and the SMS log cleared, and `setup` runs. Read the app as `ref.app`.
 */
export function sharedTestApp(options: TestAppOptions & { setup?: (app: TestApp) => Promise<unknown> } = {}) {
  const ref = {} as { app: TestApp }
  beforeAll(async () => {
    ref.app = await createTestApp(options)
  })
  afterAll(() => ref.app.close())
  beforeEach(async () => {
    await resetDatabase(ref.app)
    options.clock?.set()
    options.sms?.clear()
    await options.setup?.(ref.app)
  })
  return ref
}

/** Resolves once `condition` holds (checked every 10 ms), or fails after `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
