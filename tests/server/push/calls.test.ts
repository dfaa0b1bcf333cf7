// The push and alert calls with a fake transport (docs/product.md §12, decisions 89–93): the key, the
// subscription's life (stored, moved, removed, gone with its sign-in), the push services allowed, the
// test notification, what 404/410 and 429/5xx do, the settings and their validation, alerts raised once
// whichever instance computes them, quiet hours across midnight.
import { sql } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { alertsOf } from '../../../server/alerts/list.ts'
import { recordOnce } from '../../../server/alerts/record.ts'
import { inQuietHours } from '../../../server/alerts/settings.ts'
import { addStore, addUser, grant, signOutEverywhere } from '../../../server/db/accounts.ts'
import { messages } from '../../../server/errors.ts'
import { backoffMs } from '../../../server/push/deliver.ts'
import { isAllowedEndpoint } from '../../../server/push/endpoints.ts'
import { testNotification } from '../../../server/routes/push.ts'
import { alertSettings } from '../../web/alerts/settings-fixture.ts'
import { answerOf, type OpenApiDocument, problems } from '../openapi-check.ts'
import {
  bearer,
  capturedSms,
  createTestApp,
  sharedTestApp,
  signIn,
  type TestApp,
  testClock,
  withAnotherInstance,
} from '../test-app.ts'
import { browserSubscription, fakeTransport } from './helpers.ts'

const owner = '01012345678'
const staff = '01022223333'
const stranger = '01033334444'
const fcm = (id: string) => `https://fcm.googleapis.com/fcm/send/${id}`
const clock = testClock('2026-03-15T03:00:00.000Z')
const sms = capturedSms()
const fake = fakeTransport()
let storeId = 0
let otherStoreId = 0
const current = sharedTestApp({
  clock,
  sms,
  env: { PUSH_ALLOWED_ORIGINS: 'https://push.example.net, https://127.0.0.1:8443' },
  pushTransport: () => fake.transport,
  setup: async (app: TestApp) => {
    fake.clear()
    await addUser(app.db, { phone: owner, name: '김사장' })
    await addUser(app.db, { phone: staff, name: '이직원' })
    await addUser(app.db, { phone: stranger, name: '남' })
    storeId = await addStore(app.db, { name: '역삼점' })
    otherStoreId = await addStore(app.db, { name: '남의 매장' })
    await grant(app.db, owner, storeId, 'owner')
    await grant(app.db, staff, storeId, 'staff')
    await grant(app.db, stranger, otherStoreId, 'owner')
  },
})

// Every answer here is checked against the OpenAPI document, and the last test checks that every
// status of these calls was met.
const seen = new Set<string>()
const undeclared: string[] = []
let document: OpenApiDocument
beforeAll(async () => {
  document = (await current.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
})
async function call(options: InjectOptions & { method: 'GET' | 'PUT' | 'POST' | 'DELETE'; url: string }) {
  const response = await current.app.inject(options)
  const path = options.url.split('?')[0] ?? options.url
  seen.add(`${options.method} ${path} ${response.statusCode}`)
  undeclared.push(...problems(document, options.method, path, answerOf(response)))
  return response
}
const subscriptionCount = async (app: TestApp) =>
  Number(
    (
      (await app.db.execute(sql`select count(*)::int as n from push_subscriptions`)) as unknown as {
        rows: { n: number }[]
      }
    ).rows[0]?.n,
  )
const put = (access: string, payload: object) =>
  call({ method: 'PUT', url: '/api/v0/push/subscription', headers: bearer(access), payload })
async function subscribe(access: string, endpoint: string) {
  const subscription = browserSubscription(endpoint)
  const response = await call({
    method: 'PUT',
    url: '/api/v0/push/subscription',
    headers: bearer(access),
    payload: subscription.json,
  })
  expect(response.statusCode, response.body).toBe(204)
  return subscription
}
const sendTest = (access: string) =>
  call({ method: 'POST', url: '/api/v0/push/test', headers: bearer(access) })

describe('the push key', () => {
  it('is one P-256 public key, generated once and shared by every instance on the database', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, owner)
    const first = await call({ method: 'GET', url: '/api/v0/push/key', headers: bearer(tokens.access) })
    expect(first.statusCode).toBe(200)
    const key = first.json().key as string
    expect(Buffer.from(key, 'base64url')).toHaveLength(65)
    expect(Buffer.from(key, 'base64url')[0]).toBe(4)
    await withAnotherInstance(app, { clock, sms, pushTransport: () => fake.transport }, async (second) => {
      const other = await signIn(second, sms, staff)
      const answer = await second.inject({
        method: 'GET',
        url: '/api/v0/push/key',
        headers: bearer(other.access),
      })
      expect(answer.json().key).toBe(key)
      // Each user's mark: the same on every instance, another for every other user, and no id in it.
      const again = await call({ method: 'GET', url: '/api/v0/push/key', headers: bearer(tokens.access) })
      const ownerMark = again.json().mark as string
      const staffMark = answer.json().mark as string
      expect(first.json().mark).toBe(ownerMark)
      const staffHere = await signIn(app, sms, staff)
      const staffAgain = await call({
        method: 'GET',
        url: '/api/v0/push/key',
        headers: bearer(staffHere.access),
      })
      expect(staffAgain.json().mark).toBe(staffMark)
      expect(ownerMark).not.toBe(staffMark)
      expect(Buffer.from(ownerMark, 'base64url')).toHaveLength(16)
    })
    expect((await call({ method: 'GET', url: '/api/v0/push/key' })).statusCode).toBe(401)
  })

  it('is VAPID_PUBLIC_KEY when the environment names the keys', async () => {
    const publicKey = `B${'A'.repeat(86)}`
    const app = await createTestApp({
      env: { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: 'A'.repeat(43) },
      sms,
      pushTransport: () => fake.transport,
    })
    try {
      await addUser(app.db, { phone: '01099998888', name: '새사장' })
      const tokens = await signIn(app, sms, '01099998888')
      const answer = await app.inject({
        method: 'GET',
        url: '/api/v0/push/key',
        headers: bearer(tokens.access),
      })
      expect(answer.json()).toEqual({ key: publicKey, mark: expect.any(String) })
    } finally {
      await app.close()
    }
  })
})

describe('subscriptions', () => {
  it('are kept per sign-in, and the test notification goes to every one of the caller’s, only theirs', async () => {
    const { app } = current
    const phone = await signIn(app, sms, owner)
    const laptop = await signIn(app, sms, owner)
    const other = await signIn(app, sms, staff)
    await subscribe(phone.access, fcm('phone'))
    await subscribe(laptop.access, 'https://web.push.apple.com/laptop')
    await subscribe(other.access, fcm('staff'))
    const answer = await sendTest(phone.access)
    expect(answer.statusCode).toBe(202)
    expect(answer.json()).toEqual({ subscriptions: 2 })
    expect(fake.sent.map((request) => request.endpoint).sort()).toEqual([
      fcm('phone'),
      'https://web.push.apple.com/laptop',
    ])
    const request = fake.sent[0]
    expect(JSON.parse(request?.payload ?? '')).toEqual(testNotification.message)
    expect(request).toMatchObject({ ttlSeconds: 600, urgency: 'normal' })
  })

  it('the same browser’s subscription sent under another sign-in moves there: a shared device gets only its user’s alerts', async () => {
    const { app } = current
    const first = await signIn(app, sms, owner)
    const browser = await subscribe(first.access, fcm('shared'))
    const next = await signIn(app, sms, staff)
    await put(next.access, browser.json)
    expect(await subscriptionCount(app)).toBe(1)
    expect((await sendTest(first.access)).json()).toEqual({ subscriptions: 0 })
    expect((await sendTest(next.access)).json()).toEqual({ subscriptions: 1 })
  })

  it('another user’s endpoint sent with other keys stays theirs, and the answer is the same 204', async () => {
    const { app } = current
    const victim = await signIn(app, sms, owner)
    const browser = await subscribe(victim.access, fcm('victim'))
    const attacker = await signIn(app, sms, stranger)
    // The endpoint replayed without the browser's keys, with keys of the caller's own making.
    const replayed = await put(attacker.access, browserSubscription(fcm('victim')).json)
    const fresh = await put(attacker.access, browserSubscription(fcm('never-seen')).json)
    expect([replayed.statusCode, replayed.body]).toEqual([fresh.statusCode, fresh.body])
    await put(attacker.access, { ...browser.json, keys: { ...browser.json.keys, auth: 'A'.repeat(22) } })
    const rows = (await app.db.execute(
      sql`select u.phone, s.p256dh, s.auth from push_subscriptions s join users u on u.id = s.user_id where s.endpoint = ${fcm('victim')}`,
    )) as unknown as { rows: { phone: string; p256dh: string; auth: string }[] }
    expect(rows.rows).toEqual([{ phone: owner, ...browser.json.keys }])
    fake.clear()
    expect((await sendTest(victim.access)).json()).toEqual({ subscriptions: 1 })
    expect(fake.sent.map((request) => request.endpoint)).toEqual([fcm('victim')])
  })

  it('replayed under other keys while the browser sends it again, at the same time: the browser’s user keeps it', async () => {
    const { app } = current
    const victim = await signIn(app, sms, owner)
    const browser = await subscribe(victim.access, fcm('raced'))
    const attackers = await Promise.all([signIn(app, sms, staff), signIn(app, sms, stranger)])
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, (_, n) =>
        put(attackers[n % 2]?.access ?? '', browserSubscription(fcm('raced')).json),
      ),
      put(victim.access, browser.json),
      put(victim.access, browser.json),
    ])
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(8).fill(204))
    const rows = (await app.db.execute(
      sql`select u.phone, s.p256dh, s.auth from push_subscriptions s join users u on u.id = s.user_id where s.endpoint = ${fcm('raced')}`,
    )) as unknown as { rows: { phone: string; p256dh: string; auth: string }[] }
    expect(rows.rows).toEqual([{ phone: owner, ...browser.json.keys }])
  })

  it('are one per sign-in (a browser has one) and at most 10 a user, the oldest going first', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, owner)
    await subscribe(tokens.access, fcm('before'))
    await subscribe(tokens.access, fcm('after')) // the browser's subscription changed
    expect((await sendTest(tokens.access)).json()).toEqual({ subscriptions: 1 })
    expect(fake.sent.map((request) => request.endpoint)).toEqual([fcm('after')])
    const staffId = await userIdOf(app, staff)
    for (let n = 0; n < 11; n++) {
      const browser = await app.tokens.start(staffId)
      clock.advance(1000)
      await subscribe(browser.access, fcm(`staff-${n}`))
    }
    const endpoints = (await app.db.execute(
      sql`select endpoint from push_subscriptions s join users u on u.id = s.user_id where u.phone = ${staff} order by endpoint`,
    )) as unknown as { rows: { endpoint: string }[] }
    expect(endpoints.rows.map((row) => row.endpoint)).toEqual(
      Array.from({ length: 10 }, (_, n) => fcm(`staff-${n + 1}`)).sort(),
    )
    expect(await subscriptionCount(app)).toBe(11) // the owner's one, the staff member's ten
  })

  it('sent again as they were (on every start) keep the backoff the push service asked for', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, owner)
    const subscription = await subscribe(tokens.access, fcm('busy'))
    fake.answer(fcm('busy'), { statusCode: 429, retryAfter: '3600' })
    await sendTest(tokens.access)
    expect(fake.sent).toHaveLength(1)
    const again = await call({
      method: 'PUT',
      url: '/api/v0/push/subscription',
      headers: bearer(tokens.access),
      payload: subscription.json,
    })
    expect(again.statusCode).toBe(204)
    await sendTest(tokens.access)
    expect(fake.sent).toHaveLength(1)
    // New keys for the endpoint are a new subscription: it is tried at once.
    await subscribe(tokens.access, fcm('busy'))
    await sendTest(tokens.access)
    expect(fake.sent).toHaveLength(2)
  })

  it('the test notification: at most 5 in 10 minutes a user, then a 429 in Korean with Retry-After', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, owner)
    await subscribe(tokens.access, fcm('tests'))
    for (let n = 0; n < 5; n++) expect((await sendTest(tokens.access)).statusCode).toBe(202)
    clock.advance(60_000)
    const refused = await sendTest(tokens.access)
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toEqual({ message: messages.pushTestLimit })
    expect(refused.headers['retry-after']).toBe('540')
    expect(fake.sent).toHaveLength(5)
    clock.advance(540_000)
    expect((await sendTest(tokens.access)).statusCode).toBe(202)
  })

  it('DELETE removes the caller’s own only, and is no error when there is none', async () => {
    const { app } = current
    const mine = await signIn(app, sms, owner)
    const theirs = await signIn(app, sms, staff)
    await subscribe(mine.access, fcm('mine'))
    const remove = (access: string, endpoint: string) =>
      call({
        method: 'DELETE',
        url: '/api/v0/push/subscription',
        headers: bearer(access),
        payload: { endpoint },
      })
    expect((await remove(theirs.access, fcm('mine'))).statusCode).toBe(204)
    expect(await subscriptionCount(app)).toBe(1)
    expect((await remove(mine.access, fcm('mine'))).statusCode).toBe(204)
    expect(await subscriptionCount(app)).toBe(0)
    expect((await remove(mine.access, fcm('mine'))).statusCode).toBe(204)
    expect((await remove(mine.access, 'not a url')).statusCode).toBe(400)
  })

  it('end with their sign-in: logout, an administrator’s sign-out, a refresh token used twice', async () => {
    const { app } = current
    const loggedOut = await signIn(app, sms, owner)
    const kept = await signIn(app, sms, owner)
    await subscribe(loggedOut.access, fcm('a'))
    await subscribe(kept.access, fcm('b'))
    const logout = await app.inject({ method: 'DELETE', url: `/api/v0/user/sign?token=${loggedOut.refresh}` })
    expect(logout.statusCode).toBe(204)
    expect((await sendTest(kept.access)).json()).toEqual({ subscriptions: 1 })
    expect(fake.sent.map((request) => request.endpoint)).toEqual([fcm('b')])

    await signOutEverywhere(app.db, owner)
    expect(await subscriptionCount(app)).toBe(0)

    const reused = await signIn(app, sms, staff)
    await subscribe(reused.access, fcm('c'))
    const refresh = `/api/v0/user/sign?token=${reused.refresh}`
    expect((await app.inject({ method: 'GET', url: refresh })).statusCode).toBe(200)
    expect((await app.inject({ method: 'GET', url: refresh })).statusCode).toBe(401)
    expect(await subscriptionCount(app)).toBe(0)
  })

  it('of a sign-in that expired are not sent to, and are swept', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, owner)
    await subscribe(tokens.access, fcm('old'))
    const user = (await app.db.execute(sql`select user_id from push_subscriptions`)) as unknown as {
      rows: { user_id: number }[]
    }
    await app.db.execute(sql`update sign_ins set expires_at = ${new Date(clock.now().getTime() - 1000)}`)
    const report = await app.push.sendToUser(
      user.rows[0]?.user_id ?? 0,
      testNotification.message,
      testNotification.options,
    )
    expect(report).toEqual({ sent: 0, gone: 0, deferred: 0, failed: 0 })
    await app.push.sweep(clock.now())
    expect(await subscriptionCount(app)).toBe(0)
  })

  it('only on the known push services and PUSH_ALLOWED_ORIGINS; anything else is a 400 in Korean', async () => {
    const tokens = await signIn(current.app, sms, owner)
    const put = (payload: unknown) =>
      call({
        method: 'PUT',
        url: '/api/v0/push/subscription',
        headers: bearer(tokens.access),
        payload: payload as object,
      })
    for (const endpoint of [
      'https://updates.push.services.mozilla.com/wpush/v2/x',
      'https://wns2-by3p.notify.windows.com/w/?token=x',
      'https://push.example.net/s/1',
      'https://127.0.0.1:8443/s/1',
    ])
      expect((await put(browserSubscription(endpoint).json)).statusCode, endpoint).toBe(204)
    for (const endpoint of [
      'https://evil.example.com/fcm.googleapis.com',
      'https://fcm.googleapis.com.evil.example.com/x',
      'https://fcm.googleapis.com:8443/x',
      'https://user@fcm.googleapis.com/x',
      'https://127.0.0.1:9999/s/1',
      'https://push.example.net:444/s/1',
    ]) {
      const answer = await put(browserSubscription(endpoint).json)
      expect(answer.statusCode, endpoint).toBe(400)
      expect(answer.json(), endpoint).toEqual({ message: messages.pushEndpoint })
    }
    const plain = await put(browserSubscription('http://fcm.googleapis.com/x').json)
    expect(plain.json()).toEqual({ message: messages.pushEndpoint })
    const good = browserSubscription(fcm('keys')).json
    const offCurve = Buffer.from(good.keys.p256dh, 'base64url')
    offCurve[40] = (offCurve[40] ?? 0) ^ 1
    for (const keys of [
      { p256dh: good.keys.p256dh.replace(/^./, 'A'), auth: good.keys.auth },
      // 65 bytes that begin as a point should, but no point of P-256: every send would fail.
      { p256dh: offCurve.toString('base64url'), auth: good.keys.auth },
      { p256dh: good.keys.p256dh, auth: `${good.keys.auth.slice(0, -1)}!` },
      { p256dh: good.keys.p256dh },
    ]) {
      const answer = await put({ ...good, keys })
      expect(answer.statusCode).toBe(400)
      expect(answer.json()).toEqual({ message: messages.pushSubscription })
    }
    expect(isAllowedEndpoint('https://fcm.googleapis.com/fcm/send/x', [])).toBe(true)
    expect(isAllowedEndpoint('https://web.push.apple.com/x', [])).toBe(true)
    expect(isAllowedEndpoint('https://push.apple.com.example.org/x', [])).toBe(false)
  })
})

describe('what the push service answers', () => {
  it('404 and 410 delete the subscription; other refusals keep it', async () => {
    const { app } = current
    const user = await userIdOf(app, owner)
    // Three browsers of the owner's (a browser has one subscription).
    for (const browser of ['gone', 'expired', 'bad'])
      await subscribe((await app.tokens.start(user)).access, fcm(browser))
    fake.answer(fcm('gone'), { statusCode: 410 })
    fake.answer(fcm('expired'), { statusCode: 404 })
    fake.answer(fcm('bad'), { statusCode: 403 })
    expect(await app.push.sendToUser(user, testNotification.message, testNotification.options)).toEqual({
      sent: 0,
      gone: 2,
      deferred: 0,
      failed: 1,
    })
    expect(await subscriptionCount(app)).toBe(1)
  })

  it('429 and 5xx back off until Retry-After (seconds or a date), else 30 s doubling; a success resets it', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, owner)
    await subscribe(tokens.access, fcm('busy'))
    const user = await userIdOf(app, owner)
    const send = () => app.push.sendToUser(user, testNotification.message, testNotification.options)
    fake.answer(fcm('busy'), { statusCode: 429, retryAfter: '120' })
    expect((await send()).deferred).toBe(1)
    expect(fake.sent).toHaveLength(1)
    clock.advance(119_000)
    expect((await send()).deferred).toBe(1)
    expect(fake.sent).toHaveLength(1)
    clock.advance(1_000)
    fake.answer(fcm('busy'), { statusCode: 503 }, { statusCode: 500 }, new Error('socket hang up'))
    expect((await send()).deferred).toBe(1)
    expect(fake.sent).toHaveLength(2)
    // Without a Retry-After: 30 s doubling with each refusal in a row (this is the second: 60 s).
    clock.advance(59_999)
    await send()
    expect(fake.sent).toHaveLength(2)
    clock.advance(1)
    await send()
    expect(fake.sent).toHaveLength(3)
    clock.advance(119_999)
    await send()
    expect(fake.sent).toHaveLength(3)
    clock.advance(1)
    await send()
    expect(fake.sent).toHaveLength(4)
    clock.advance(239_999)
    expect((await send()).deferred).toBe(1)
    expect(fake.sent).toHaveLength(4)
    clock.advance(1)
    expect(await send()).toEqual({ sent: 1, gone: 0, deferred: 0, failed: 0 })
    const row = (await app.db.execute(sql`select failures, retry_at from push_subscriptions`)) as unknown as {
      rows: { failures: number; retry_at: unknown }[]
    }
    expect(row.rows[0]).toEqual({ failures: 0, retry_at: null })

    const now = new Date('2026-03-15T03:00:00.000Z')
    expect(backoffMs('Sun, 15 Mar 2026 03:05:00 GMT', 0, now)).toBe(300_000)
    expect(backoffMs('Sun, 15 Mar 2026 02:05:00 GMT', 0, now)).toBe(0)
    expect(backoffMs('999999999', 0, now)).toBe(24 * 3600_000)
    expect(backoffMs(undefined, 30, now)).toBe(3600_000)
    expect(backoffMs('soon', 2, now)).toBe(120_000)
  })
})

async function userIdOf(app: TestApp, phone: string) {
  const rows = (await app.db.execute(sql`select id from users where phone = ${phone}`)) as unknown as {
    rows: { id: number }[]
  }
  return rows.rows[0]?.id ?? 0
}

describe('alert settings', () => {
  const settings = (access: string) =>
    call({ method: 'GET', url: '/api/v0/alerts/settings', headers: bearer(access) })
  const change = (access: string, payload: object) =>
    call({ method: 'PUT', url: '/api/v0/alerts/settings', headers: bearer(access), payload })

  it('are the defaults at first: every kind on, quiet hours 23:00–07:00, no snooze; staff have their own', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, staff)
    const answer = await settings(tokens.access)
    expect(answer.statusCode).toBe(200)
    expect(answer.json()).toEqual({
      // By push, every kind: this server has no 알림톡 (decision 230). The alerts screen's tests take
      // the same defaults (settings-fixture.ts): this proves them.
      stores: [alertSettings({ storeId })],
      kakaoKinds: [],
    })
  })

  it('change one store of one user at a time, keep what is left out, snooze for 24 h', async () => {
    const { app } = current
    const mine = await signIn(app, sms, owner)
    const theirs = await signIn(app, sms, staff)
    const changed = await change(mine.access, {
      storeId,
      quiet: false,
      quietHours: { start: '22:30', end: '06:00' },
    })
    expect(changed.statusCode).toBe(200)
    expect(changed.json().stores[0]).toMatchObject({
      quiet: false,
      deviceOffline: true,
      quietHours: { start: '22:30', end: '06:00' },
    })
    const signals = await change(mine.access, {
      storeId,
      deviceOfflineMinutes: 25,
      machineSilent: false,
      paymentTerminal: false,
    })
    expect(signals.json().stores[0]).toMatchObject({
      quiet: false,
      deviceOfflineMinutes: 25,
      machineError: true,
      machineSilent: false,
      paymentTerminal: false,
      quietHours: { start: '22:30', end: '06:00' },
    })
    const snoozed = await change(mine.access, { storeId, snooze: true })
    expect(snoozed.json().stores[0]).toMatchObject({
      quiet: false,
      quietHours: { start: '22:30', end: '06:00' },
      snoozedUntil: '2026-03-16T03:00:00.000Z',
    })
    expect((await change(mine.access, { storeId, quietHours: null })).json().stores[0]).toMatchObject({
      quietHours: null,
      snoozedUntil: '2026-03-16T03:00:00.000Z',
    })
    expect((await settings(theirs.access)).json().stores[0]).toMatchObject({
      quiet: true,
      snoozedUntil: null,
    })
    clock.advance(24 * 3600_000)
    const later = await signIn(app, sms, owner)
    expect((await settings(later.access)).json().stores[0].snoozedUntil).toBeNull()
    expect((await change(later.access, { storeId, snooze: true })).json().stores[0].snoozedUntil).toBe(
      '2026-03-17T03:00:00.000Z',
    )
    expect((await change(later.access, { storeId, snooze: false })).json().stores[0].snoozedUntil).toBeNull()
  })

  it('refuse bad input with a 400 in Korean, and a store the user may not see with a 403, writing nothing', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, owner)
    const cases: [object, string][] = [
      [{ storeId, quietHours: { start: '24:00', end: '07:00' } }, messages.quietHours],
      [{ storeId, quietHours: { start: '7:00', end: '23:00' } }, messages.quietHours],
      [{ storeId, quietHours: { start: '07:00', end: '07:00' } }, messages.quietHours],
      [{ storeId, quietHours: { start: '07:00' } }, messages.quietHours],
      [{ storeId, quiet: 'yes' }, messages.alertSettings],
      [{ storeId, snooze: 'maybe' }, messages.alertSettings],
      [{ storeId, machineError: 'on' }, messages.alertSettings],
      [{ storeId, paymentTerminal: {} }, messages.alertSettings],
      [{ storeId, deviceOfflineMinutes: 4 }, messages.offlineMinutes],
      [{ storeId, deviceOfflineMinutes: 31 }, messages.offlineMinutes],
      [{ storeId, deviceOfflineMinutes: 7.5 }, messages.offlineMinutes],
      [{ storeId, deviceOfflineMinutes: 'ten' }, messages.offlineMinutes],
      [{ quiet: true }, messages.storeId],
      [{ storeId: 0 }, messages.storeId],
      [{ storeId: 'Infinity' }, messages.storeId],
    ]
    for (const [payload, message] of cases) {
      const answer = await change(tokens.access, payload)
      expect(answer.statusCode, JSON.stringify(payload)).toBe(400)
      expect(answer.json(), JSON.stringify(payload)).toEqual({ message })
    }
    for (const id of [otherStoreId, 999]) {
      const answer = await change(tokens.access, { storeId: id, quiet: false })
      expect(answer.statusCode).toBe(403)
      expect(answer.json()).toEqual({ message: messages.alertStore })
    }
    const rows = (await app.db.execute(sql`select count(*)::int as n from alert_settings`)) as unknown as {
      rows: { n: number }[]
    }
    expect(rows.rows[0]?.n).toBe(0)
  })
})

describe('alerts', () => {
  it('are raised once whichever instance computes them (the database decides), and listed sent or held', async () => {
    const { app } = current
    const tokens = await signIn(app, sms, owner)
    await subscribe(tokens.access, fcm('alerts'))
    const user = await userIdOf(app, owner)
    await withAnotherInstance(app, { clock, sms, pushTransport: () => fake.transport }, async (second) => {
      const alert = {
        userId: user,
        storeId,
        kind: 'quiet' as const,
        episode: '2026-03-15T01:00:00.000Z',
        title: '역삼점 · 판매 없음',
        body: '12:10 이후 판매가 없습니다 (보통 이 시간엔 6건).',
        tag: `quiet-${storeId}`,
      }
      const at = clock.now()
      // The second instance asks first, so on PGlite (one queue) it is the one that records.
      const outcomes = await Promise.all([
        recordOnce(second.db, alert, false, at),
        recordOnce(app.db, alert, false, at),
        recordOnce(app.db, alert, false, at),
      ])
      expect(outcomes.filter((recorded) => recorded)).toHaveLength(1)
      // Both instances push from the outbox at once: one of them takes it.
      await Promise.all([
        second.alertRules.deliver(at),
        app.alertRules.deliver(at),
        app.alertRules.deliver(at),
      ])
      expect(fake.sent).toHaveLength(1)
      expect(JSON.parse(fake.sent[0]?.payload ?? '')).toEqual({
        title: alert.title,
        body: alert.body,
        tag: alert.tag,
        store: storeId,
      })
      await recordOnce(
        app.db,
        { ...alert, episode: 'summary', storeId: null, kind: 'morningSummary' },
        true,
        at,
      )
      await app.alertRules.deliver(at)
      expect(fake.sent).toHaveLength(1)
      const listed = await call({ method: 'GET', url: '/api/v0/alerts', headers: bearer(tokens.access) })
      expect(listed.statusCode).toBe(200)
      expect(
        listed.json().alerts.map((row: { kind: string; state: string }) => `${row.kind} ${row.state}`),
      ).toEqual(['morningSummary held', 'quiet sent'])
      expect(await alertsOf(app.db, await userIdOf(app, staff), clock.now())).toEqual([])
    })
  })

  it('quiet hours are Korea time, and a window across midnight (and the UTC date change) works', () => {
    const night = { start: 23 * 60, end: 7 * 60 }
    const at = (iso: string) => inQuietHours(night, new Date(iso))
    expect(at('2026-03-15T13:59:00Z')).toBe(false) // 22:59 KST
    expect(at('2026-03-15T14:00:00Z')).toBe(true) // 23:00
    expect(at('2026-03-15T15:00:00Z')).toBe(true) // 00:00, the Korean date changes
    expect(at('2026-03-15T23:59:00Z')).toBe(false) // 08:59
    expect(at('2026-03-15T21:59:00Z')).toBe(true) // 06:59
    expect(at('2026-03-15T22:00:00Z')).toBe(false) // 07:00
    const day = { start: 9 * 60, end: 10 * 60 }
    expect(inQuietHours(day, new Date('2026-03-15T23:59:00Z'))).toBe(false) // 08:59 KST, UTC date still the 15th
    expect(inQuietHours(day, new Date('2026-03-16T00:00:00Z'))).toBe(true) // 09:00 KST, UTC date changes
    expect(inQuietHours(null, new Date('2026-03-15T15:00:00Z'))).toBe(false)
  })
})

describe('the OpenAPI document', () => {
  it('declares every answer met above, and every status of these calls was met', () => {
    expect(undeclared).toEqual([])
    const statuses = (prefix: string) =>
      [...seen]
        .filter((entry) => entry.startsWith(`${prefix} `))
        .map((entry) => Number(entry.slice(-3)))
        .sort()
    expect(statuses('GET /api/v0/push/key')).toEqual([200, 401])
    expect(statuses('PUT /api/v0/push/subscription')).toEqual([204, 400])
    expect(statuses('DELETE /api/v0/push/subscription')).toEqual([204, 400])
    expect(statuses('POST /api/v0/push/test')).toEqual([202, 429])
    expect(statuses('GET /api/v0/alerts/settings')).toEqual([200])
    expect(statuses('PUT /api/v0/alerts/settings')).toEqual([200, 400, 403])
    expect(statuses('GET /api/v0/alerts')).toEqual([200])
  })
})
