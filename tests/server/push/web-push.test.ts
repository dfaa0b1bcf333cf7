// The real transport (web-push) against a push service of our own on HTTPS (mock-push-service.ts):
// the request carries VAPID (a JWT signed with the key GET /push/key names, for the service's origin,
// with our subject), TTL, Urgency and an aes128gcm body that the browser's keys decrypt to the message;
// 410 deletes the subscription; 429 sets its Retry-After.
import { Agent } from 'node:https'
import { sql } from 'drizzle-orm'
import { decrypt } from 'http_ece'
import { importJWK, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { webPushTransport } from '../../../server/push/transport.ts'
import { testNotification } from '../../../server/routes/push.ts'
import { bearer, capturedSms, createTestApp, signIn, type TestApp } from '../test-app.ts'
import { browserSubscription } from './helpers.ts'
import { startMockPushService } from './mock-push-service.ts'

const subject = 'mailto:ops@laundry.example.co.kr'
const owner = '01012345678'
const sms = capturedSms()
let service: Awaited<ReturnType<typeof startMockPushService>>
let app: TestApp
let ownerId = 0

beforeAll(async () => {
  service = await startMockPushService()
  const agent = new Agent({ ca: service.cert })
  app = await createTestApp({
    sms,
    env: { PUSH_ALLOWED_ORIGINS: service.origin, VAPID_SUBJECT: subject },
    pushTransport: (keys, configuredSubject) => webPushTransport({ keys, subject: configuredSubject, agent }),
  })
  ownerId = await addUser(app.db, { phone: owner, name: '김사장' })
  await grant(app.db, owner, await addStore(app.db, { name: '역삼점' }), 'owner')
})
afterAll(async () => {
  await app?.close()
  await service?.close()
})

const rowsOf = async () =>
  (
    (await app.db.execute(
      sql`select endpoint, failures, retry_at from push_subscriptions order by endpoint`,
    )) as unknown as {
      rows: { endpoint: string; failures: number; retry_at: unknown }[]
    }
  ).rows

describe('web-push against a local push service', () => {
  it('sends VAPID, TTL, Urgency and an aes128gcm payload that the browser decrypts; 410 deletes; 429 backs off', async () => {
    const tokens = await signIn(app, sms, owner)
    const key = (
      await app.inject({ method: 'GET', url: '/api/v0/push/key', headers: bearer(tokens.access) })
    ).json().key as string
    const browser = browserSubscription(`${service.origin}/push/browser-1`)
    const gone = browserSubscription(`${service.origin}/gone/browser-2`)
    const busy = browserSubscription(`${service.origin}/busy/browser-3`)
    // Three browsers of the owner's, each its own sign-in (a browser has one subscription).
    for (const subscription of [browser, gone, busy]) {
      const put = await app.inject({
        method: 'PUT',
        url: '/api/v0/push/subscription',
        headers: bearer((await app.tokens.start(ownerId)).access),
        payload: subscription.json,
      })
      expect(put.statusCode, put.body).toBe(204)
    }
    const sentAt = Math.floor(Date.now() / 1000)
    const test = await app.inject({
      method: 'POST',
      url: '/api/v0/push/test',
      headers: bearer(tokens.access),
    })
    expect(test.statusCode).toBe(202)
    expect(service.received.map((request) => request.path).sort()).toEqual([
      '/busy/browser-3',
      '/gone/browser-2',
      '/push/browser-1',
    ])
    const request = service.received.find((entry) => entry.path === '/push/browser-1')
    if (!request) throw new Error('nothing received')
    expect(request.headers.ttl).toBe('600')
    expect(request.headers.urgency).toBe('normal')
    expect(request.headers['content-encoding']).toBe('aes128gcm')

    // VAPID (RFC 8292): `vapid t=<JWT>, k=<public key>`, the JWT signed (ES256) with that key.
    const authorization = String(request.headers.authorization)
    const [, token, k] = authorization.match(/^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/) ?? []
    expect(k).toBe(key)
    const point = Buffer.from(key, 'base64url')
    const publicKey = await importJWK(
      {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      'ES256',
    )
    const { payload } = await jwtVerify(token ?? '', publicKey, { algorithms: ['ES256'] })
    expect(payload.aud).toBe(service.origin)
    expect(payload.sub).toBe(subject)
    expect(payload.exp).toBeGreaterThan(sentAt)
    expect(payload.exp).toBeLessThanOrEqual(sentAt + 24 * 3600 + 5)

    const clear = decrypt(request.body, {
      version: 'aes128gcm',
      privateKey: browser.keys.ecdh,
      authSecret: browser.keys.auth,
    })
    expect(JSON.parse(clear.toString('utf8'))).toEqual(testNotification.message)

    const rows = await rowsOf()
    expect(rows.map((row) => row.endpoint)).toEqual([busy.json.endpoint, browser.json.endpoint])
    expect(rows[0]).toMatchObject({ failures: 1 })
    expect(rows[0]?.retry_at).not.toBeNull()
    expect(rows[1]).toMatchObject({ failures: 0, retry_at: null })
  })
})
