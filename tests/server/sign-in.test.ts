import { describe, expect, it } from 'vitest'
import { addUser } from '../../server/db/accounts.ts'
import { capturedSms, createTestApp, sharedTestApp, type TestApp, testClock } from './test-app.ts'

const owner = '01012345678'
const stranger = '01099998888'
const minute = 60_000

const clock = testClock()
const sms = capturedSms()
let app: TestApp

function sharedApp(env: Record<string, string> = {}) {
  sharedTestApp({
    clock,
    sms,
    env,
    setup: async (own) => {
      app = own
      await addUser(own.db, { phone: owner, name: '김사장' })
    },
  })
}

const requestCode = (phone: string, remoteAddress = '203.0.113.7') =>
  app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone }, remoteAddress })
const sign = (phone: string, code: string, remoteAddress = '203.0.113.7') =>
  app.inject({ method: 'POST', url: '/api/v0/user/sign', payload: { phone, code }, remoteAddress })
/** A 4-digit code that is surely not the one sent. */
const wrong = (code: string) => String((Number(code) + 1) % 10_000).padStart(4, '0')

describe('requesting a code', () => {
  sharedApp()
  it('answers 200 with expiresIn 180 and sends a 4-digit code to a registered number', async () => {
    const response = await requestCode(owner)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ expiresIn: 180 })
    expect(sms.sent).toHaveLength(1)
    expect(sms.sent[0]?.to).toBe(owner)
    expect(sms.lastCode(owner)).toMatch(/^\d{4}$/)
  })

  it('accepts hyphens and spaces in the number', async () => {
    expect((await requestCode('010-1234 5678')).statusCode).toBe(200)
    expect(sms.sent[0]?.to).toBe(owner)
  })

  it('gives an unregistered number the same answer and sends no SMS', async () => {
    const registered = await requestCode(owner)
    const unregistered = await requestCode(stranger)
    expect(unregistered.statusCode).toBe(registered.statusCode)
    expect(unregistered.body).toBe(registered.body)
    expect(sms.sent.map((m) => m.to)).toEqual([owner])
  })

  it.each([
    ['letters', 'abc'],
    ['too short', '010123'],
    ['too long', '010123456789'],
    ['not a mobile number', '0212345678'],
  ])('refuses a malformed number (%s) with 400 and a Korean message', async (_, phone) => {
    const response = await requestCode(phone)
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toBe('휴대폰 번호를 확인해 주세요. 숫자 10~11자리로 입력해 주세요.')
  })

  it('refuses a missing body or a missing phone with 400', async () => {
    const empty = await app.inject({ method: 'PUT', url: '/api/v0/user/phone' })
    expect(empty.statusCode).toBe(400)
    const noPhone = await app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: {} })
    expect(noPhone.statusCode).toBe(400)
    expect(noPhone.json().message).toMatch(/휴대폰 번호/)
  })
})

describe('signing in', () => {
  sharedApp()
  it('signs in with the code sent, and the code works only once', async () => {
    await requestCode(owner)
    const code = sms.lastCode(owner)
    const first = await sign(owner, code)
    expect(first.statusCode).toBe(200)
    expect(first.json().token).toEqual({ access: expect.any(String), refresh: expect.any(String) })
    const again = await sign(owner, code)
    expect(again.statusCode).toBe(401)
    expect(again.json().message).toMatch(/[가-힣]/)
  })

  it('refuses a wrong code with 401 and a Korean message', async () => {
    await requestCode(owner)
    const response = await sign(owner, wrong(sms.lastCode(owner)))
    expect(response.statusCode).toBe(401)
    expect(response.json().message).toBe('인증번호가 일치하지 않습니다.')
  })

  it('refuses a code after 180 seconds', async () => {
    await requestCode(owner)
    clock.advance(180_000)
    const response = await sign(owner, sms.lastCode(owner))
    expect(response.statusCode).toBe(401)
  })

  it('accepts a code just before it expires', async () => {
    await requestCode(owner)
    clock.advance(179_000)
    expect((await sign(owner, sms.lastCode(owner))).statusCode).toBe(200)
  })

  it('binds a code to its phone', async () => {
    await addUser(app.db, { phone: '01022223333', name: '이직원' })
    await requestCode(owner)
    await requestCode('01022223333')
    expect((await sign('01022223333', sms.lastCode(owner))).statusCode).not.toBe(200)
  })

  it('replaces the previous code when the same address asks again', async () => {
    await requestCode(owner)
    const first = sms.lastCode(owner)
    let second = first
    // A new code may by chance equal the old one; ask until it differs.
    while (second === first) {
      await requestCode(owner)
      second = sms.lastCode(owner)
    }
    expect((await sign(owner, first)).statusCode).toBe(401)
    expect((await sign(owner, second)).statusCode).toBe(200)
  })

  it('ends a code after 5 wrong tries, even if the right code follows', async () => {
    await requestCode(owner)
    const code = sms.lastCode(owner)
    for (let i = 0; i < 5; i++) expect((await sign(owner, wrong(code))).statusCode).toBe(401)
    expect((await sign(owner, code)).statusCode).toBe(401)
  })

  it('answers an unregistered number exactly like a registered one with a wrong code', async () => {
    await requestCode(owner)
    await requestCode(stranger)
    const registered = await sign(owner, wrong(sms.lastCode(owner)))
    const unregistered = await sign(stranger, '0000')
    expect(unregistered.statusCode).toBe(registered.statusCode)
    expect(unregistered.json()).toEqual(registered.json())
    // Neither leaves a known-device cookie: only a successful sign-in does.
    expect(registered.headers['set-cookie']).toBeUndefined()
    expect(unregistered.headers['set-cookie']).toBeUndefined()
  })

  it('leaves a known-device cookie on a successful sign-in: HttpOnly, SameSite=Strict, for the sign-in routes, 400 days', async () => {
    await requestCode(owner)
    const signed = await sign(owner, sms.lastCode(owner))
    const cookie = String(signed.headers['set-cookie'])
    // Over plain http (a shop's own network, localhost) it cannot be Secure, or the browser would drop it.
    expect(cookie).toMatch(
      /^knownDevice=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}; Path=\/api\/v0\/user; Max-Age=34560000; HttpOnly; SameSite=Strict$/,
    )
    // A random device id and a MAC: no number in clear.
    expect(cookie).not.toContain(owner)
    expect(cookie).not.toContain(owner.slice(3))
    // Signing in again on the same browser keeps its device id and credential (the browser sends its
    // cookie with the code request too: the code is bound to it).
    const value = cookie.split(';')[0] ?? ''
    await app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      payload: { phone: owner },
      remoteAddress: '203.0.113.7',
      headers: { cookie: value },
    })
    const again = await app.inject({
      method: 'POST',
      url: '/api/v0/user/sign',
      payload: { phone: owner, code: sms.lastCode(owner) },
      remoteAddress: '203.0.113.7',
      headers: { cookie: value },
    })
    expect(again.statusCode).toBe(200)
    expect(String(again.headers['set-cookie']).split(';')[0]).toBe(value)
  })
  it('refuses a code that is not 4 digits with 400', async () => {
    const response = await sign(owner, '12345')
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toBe('인증번호는 숫자 4자리입니다.')
  })
})

describe('the known-device cookie over https', () => {
  const own = sharedTestApp({
    clock,
    sms,
    env: { TRUST_PROXY: '1' },
    setup: (created) => addUser(created.db, { phone: owner, name: '김사장' }),
  })
  it('is Secure when the request came over https, as the trusted proxy says', async () => {
    const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.8' }
    await own.app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      payload: { phone: owner },
      headers: https,
    })
    const signed = await own.app.inject({
      method: 'POST',
      url: '/api/v0/user/sign',
      payload: { phone: owner, code: sms.lastCode(owner) },
      headers: https,
    })
    expect(signed.statusCode).toBe(200)
    expect(String(signed.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Secure$/)
  })
})

describe('locking a client out of a phone after repeated failures', () => {
  // Many codes are requested and tried here; the request and attempt limits have tests of their own.
  sharedApp({
    CODE_REQUESTS_PER_PHONE_PER_HOUR: '100',
    CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY: '1000',
    CODE_REQUESTS_PER_PHONE_PER_DAY: '1001',
    SIGN_ATTEMPTS_PER_IP_PER_HOUR: '1000',
  })

  /** Fails `count` sign-ins, requesting a new code whenever the current one has used its 5 tries. */
  async function fail(count: number) {
    const answers = []
    for (let i = 0; i < count; i++) {
      if (i % 5 === 0) await requestCode(owner)
      answers.push(await sign(owner, wrong(sms.lastCode(owner))))
    }
    const last = answers.at(-1)
    if (!last) throw new Error('fail(count) needs count > 0')
    return last
  }

  it('locks the client out of the phone for 30 minutes at the 10th consecutive failure, across codes', async () => {
    const tenth = await fail(10)
    expect(tenth.statusCode).toBe(429)
    expect(tenth.headers['retry-after']).toBe(String(30 * 60))
    expect(tenth.json().message).toMatch(/잠시 잠겼습니다/)

    // While locked, even the right code and new code requests are refused.
    const request = await requestCode(owner)
    expect(request.statusCode).toBe(429)
    clock.advance(29 * minute)
    expect((await sign(owner, sms.lastCode(owner))).statusCode).toBe(429)

    clock.advance(minute)
    await requestCode(owner)
    expect((await sign(owner, sms.lastCode(owner))).statusCode).toBe(200)
  })

  it('doubles the lock each time, up to 24 hours', async () => {
    const expected = [30, 60, 120, 240, 480, 960, 1440, 1440].map((minutes) => String(minutes * 60))
    for (const seconds of expected) {
      const locking = await fail(10)
      expect(locking.statusCode).toBe(429)
      expect(locking.headers['retry-after']).toBe(seconds)
      clock.advance(Number(seconds) * 1000)
    }
  })

  it('resets the count only on a successful sign-in', async () => {
    await fail(9)
    await requestCode(owner)
    expect((await sign(owner, sms.lastCode(owner))).statusCode).toBe(200)
    // Nine more failures do not lock: the count started again.
    const ninth = await fail(9)
    expect(ninth.statusCode).toBe(401)
    // A new code does not reset it: the tenth locks.
    await requestCode(owner)
    expect((await sign(owner, wrong(sms.lastCode(owner)))).statusCode).toBe(429)
  })

  it('keeps counting after a lock ends: the next lock comes 10 failures later', async () => {
    await fail(10)
    clock.advance(30 * minute)
    expect((await fail(9)).statusCode).toBe(401)
    expect((await fail(1)).statusCode).toBe(429)
  })
})

describe('limiting code requests', () => {
  sharedApp()
  it('allows 5 requests per phone from one address per hour, then 429 with Retry-After until the oldest leaves the hour', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await requestCode(owner)).statusCode).toBe(200)
      clock.advance(minute)
    }
    const sixth = await requestCode(owner)
    expect(sixth.statusCode).toBe(429)
    expect(sixth.json().message).toBe('인증번호 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.')
    expect(sixth.headers['retry-after']).toBe(String(55 * 60))
    expect(sms.sent).toHaveLength(5)
    clock.advance(55 * minute)
    expect((await requestCode(owner)).statusCode).toBe(200)
  })

  it('counts per phone and client address: another address may still ask for the same number', async () => {
    for (let i = 0; i < 5; i++) expect((await requestCode(owner)).statusCode).toBe(200)
    expect((await requestCode(owner)).statusCode).toBe(429)
    expect((await requestCode(owner, '198.51.100.99')).statusCode).toBe(200)
  })

  it('allows 20 requests per client address per hour, whatever the numbers', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await requestCode(`0101111${String(i).padStart(4, '0')}`)).statusCode).toBe(200)
    }
    const response = await requestCode('01055556666')
    expect(response.statusCode).toBe(429)
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0)
    // Another address is not affected.
    expect((await requestCode('01055556666', '203.0.113.8')).statusCode).toBe(200)
  })

  it('counts an IPv6 client by its /64 network', async () => {
    for (let i = 0; i < 20; i++) {
      await requestCode(`0101111${String(i).padStart(4, '0')}`, `2001:db8:1:2::${(i + 1).toString(16)}`)
    }
    expect((await requestCode('01055556666', '2001:db8:1:2:ffff::1')).statusCode).toBe(429)
    expect((await requestCode('01055556666', '2001:db8:1:3::1')).statusCode).toBe(200)
  })

  it('reads the limits from the environment', async () => {
    const strict = await createTestApp({ clock, sms, env: { CODE_REQUESTS_PER_PHONE_PER_HOUR: '1' } })
    try {
      await addUser(strict.db, { phone: owner, name: '김사장' })
      const put = () => strict.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone: owner } })
      expect((await put()).statusCode).toBe(200)
      expect((await put()).statusCode).toBe(429)
    } finally {
      await strict.close()
    }
  })
})
