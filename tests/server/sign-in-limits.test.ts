// The limits on sign-in attempts: per client, per code's requester, per (phone, client) lock, and the
// phone-wide daily bound that caps guesses at one account whatever the number of addresses.
import { describe, expect, it } from 'vitest'
import { readConfig } from '../../server/config.ts'
import { addUser } from '../../server/db/accounts.ts'
import { capturedSms, sharedTestApp, type TestApp, testClock } from './test-app.ts'

const owner = '01012345678'
const ownerAddress = '203.0.113.7'
const clock = testClock()
const sms = capturedSms()
const minute = 60_000

/** The worst case of wrong guesses at one account in any 24 hours, from the configured limits. */
function guessesPerDay(limits: ReturnType<typeof readConfig>['limits']) {
  // One client: F failures, then a lock of LOCK_MINUTES doubling up to LOCK_MAX_HOURS; a new run of F
  // failures may start each time a lock ends within the day.
  const durations: number[] = []
  for (let i = 0; durations.length < 64; i++) {
    durations.push(Math.min(limits.lockMinutes * 2 ** i, limits.lockMaxHours * 60))
  }
  let runs = 0
  for (let start = 0, i = 0; start < 24 * 60; start += durations[i++] ?? 0) runs++
  const byLocks = limits.signFailuresBeforeLock * runs
  const byAttempts = limits.signAttemptsPerIpPerHour * 24
  const oneClient = Math.min(byLocks, byAttempts)
  // Any number of clients: failures from all of them together stop at the phone's daily bound.
  const anyClients = limits.signFailuresPerPhonePerDay
  return { oneClient, anyClients, worst: Math.max(oneClient, anyClients) }
}

describe('the guessing bound', () => {
  it('a 4-digit code is guessed with a chance of at most 1 % a day, and one address cannot close a phone', () => {
    const { limits } = readConfig({})
    const { oneClient, anyClients, worst } = guessesPerDay(limits)
    console.info(
      `wrong guesses per account per day: one address ${oneClient}, any number of addresses ${anyClients}; chance ${worst / 10_000}`,
    )
    expect(oneClient).toBe(60) // 10 failures in each of 6 runs: locks of 30, 60, 120, 240, 480 minutes end within the day
    expect(worst / 10_000).toBeLessThanOrEqual(0.01)
    // The phone-wide refusal needs failures from more than one address.
    expect(oneClient).toBeLessThan(anyClients)
  })

  it('no configuration can raise the phone-wide bound above 1 % a day', () => {
    expect(() => readConfig({ SIGN_FAILURES_PER_PHONE_PER_DAY: '101' })).toThrowError(
      /SIGN_FAILURES_PER_PHONE_PER_DAY/,
    )
    const loosest = readConfig({
      SIGN_FAILURES_PER_PHONE_PER_DAY: '100',
      SIGN_ATTEMPTS_PER_IP_PER_HOUR: '100000',
    })
    expect(guessesPerDay(loosest.limits).anyClients / 10_000).toBeLessThanOrEqual(0.01)
  })
})

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
const requestCode = (phone: string, remoteAddress: string) =>
  app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone }, remoteAddress })
const sign = (phone: string, code: string, remoteAddress: string) =>
  app.inject({ method: 'POST', url: '/api/v0/user/sign', payload: { phone, code }, remoteAddress })
const wrong = (code: string) => String((Number(code) + 1) % 10_000).padStart(4, '0')

describe('sign-in attempts per client', () => {
  sharedApp()
  it('allows 20 an hour from one address, whatever the numbers, then 429 with Retry-After', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await sign(`0101111${String(i).padStart(4, '0')}`, '0000', '198.51.100.9')).statusCode).toBe(
        401,
      )
    }
    const refused = await sign('01055556666', '0000', '198.51.100.9')
    expect(refused.statusCode).toBe(429)
    expect(refused.json().message).toBe('로그인 시도가 너무 많습니다. 잠시 후 다시 시도해 주세요.')
    expect(Number(refused.headers['retry-after'])).toBe(3600)
    // Another client, and the same client an hour later, are not refused.
    expect((await sign('01055556666', '0000', '198.51.100.10')).statusCode).toBe(401)
    clock.advance(60 * minute)
    expect((await sign('01055556666', '0000', '198.51.100.9')).statusCode).toBe(401)
  })

  it('counts an IPv6 client by its /64 network', async () => {
    for (let i = 0; i < 20; i++) await sign(owner, '0000', `2001:db8:5:6::${(i + 1).toString(16)}`)
    expect((await sign(owner, '0000', '2001:db8:5:6:abcd::1')).statusCode).toBe(429)
    expect((await sign(owner, '0000', '2001:db8:5:7::1')).statusCode).toBe(401)
  })
})

describe('someone who never received the code', () => {
  sharedApp()
  it('cannot end the owner’s code or lock the phone by trying codes from other addresses', async () => {
    await requestCode(owner, ownerAddress)
    const code = sms.lastCode(owner)
    for (let address = 1; address <= 4; address++) {
      for (let i = 0; i < 20; i++) {
        const attempt = await sign(owner, wrong(code), `198.51.100.${address}`)
        expect(attempt.statusCode).toBe(401)
        expect(attempt.json().message).toMatch(/만료되었거나 요청되지 않았습니다/)
      }
    }
    expect((await sign(owner, code, ownerAddress)).statusCode).toBe(200)
  })

  it('asking for codes and failing with them locks out only the asking address', async () => {
    const attacker = '198.51.100.66'
    for (let round = 0; round < 2; round++) {
      await requestCode(owner, attacker)
      for (let i = 0; i < 5; i++) await sign(owner, wrong(sms.lastCode(owner)), attacker)
    }
    const locked = await requestCode(owner, attacker)
    expect(locked.statusCode).toBe(429)
    expect(locked.headers['retry-after']).toBe(String(30 * 60))
    // The owner, elsewhere, asks for a code and signs in.
    expect((await requestCode(owner, ownerAddress)).statusCode).toBe(200)
    expect((await sign(owner, sms.lastCode(owner), ownerAddress)).statusCode).toBe(200)
  })
})

describe('the phone-wide daily bound', () => {
  sharedApp({ SIGN_FAILURES_PER_PHONE_PER_DAY: '12', CODE_REQUESTS_PER_PHONE_PER_HOUR: '100' })
  it('after that many failures from any addresses in 24 hours, the phone answers nobody until they age out', async () => {
    for (let address = 1; address <= 3; address++) {
      const from = `198.51.100.${address}`
      await requestCode(owner, from)
      for (let i = 0; i < 4; i++)
        expect((await sign(owner, wrong(sms.lastCode(owner)), from)).statusCode).toBe(401)
      clock.advance(minute)
    }
    // 12 failures, none of whose addresses is locked itself: the phone is closed to everyone.
    const refused = await requestCode(owner, ownerAddress)
    expect(refused.statusCode).toBe(429)
    expect(Number(refused.headers['retry-after'])).toBe(24 * 3600 - 3 * 60)
    expect((await sign(owner, '0000', ownerAddress)).statusCode).toBe(429)
    clock.advance(24 * 60 * minute - 3 * minute)
    expect((await requestCode(owner, ownerAddress)).statusCode).toBe(200)
    expect((await sign(owner, sms.lastCode(owner), ownerAddress)).statusCode).toBe(200)
  })
})
