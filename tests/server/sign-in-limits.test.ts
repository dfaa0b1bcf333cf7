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
  // A client's tries are compared only against codes it asked for itself, each ending after CODE_MAX_TRIES.
  const byCodes = limits.codeMaxTries * codesPerDay(limits).oneClient
  const oneClient = Math.min(byLocks, byAttempts, byCodes)
  // Any number of clients: failures from all of them together stop at the phone's daily bound.
  const anyClients = limits.signFailuresPerPhonePerDay
  return { oneClient, anyClients, worst: Math.max(oneClient, anyClients) }
}

/** The most codes one phone can be sent in any 24 hours: from one client, and from all together. */
function codesPerDay(limits: ReturnType<typeof readConfig>['limits']) {
  const oneClient = Math.min(
    limits.codeRequestsPerPhonePerHour * 24,
    limits.codeRequestsPerPhonePerClientPerDay,
    limits.codeRequestsPerIpPerHour * 24,
  )
  return { oneClient, anyClients: limits.codeRequestsPerPhonePerDay }
}

describe('the code-request bound', () => {
  it('one address cannot use a phone’s day of codes, so the owner elsewhere can always ask', () => {
    const { oneClient, anyClients } = codesPerDay(readConfig({}).limits)
    console.info(`codes per phone per day: one address ${oneClient}, all addresses ${anyClients}`)
    // min(5 an hour x 24 = 120, 10 a day, 20 an hour x 24 = 480) = 10 from one address; 30 from all.
    expect(oneClient).toBe(10)
    expect(anyClients).toBe(30)
    expect(oneClient).toBeLessThan(anyClients)
  })

  it('refuses a configuration in which one address could use the phone’s whole day', () => {
    expect(() =>
      readConfig({ CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY: '30', CODE_REQUESTS_PER_PHONE_PER_DAY: '30' }),
    ).toThrowError(/CODE_REQUESTS_PER_PHONE_PER_DAY/)
    expect(() =>
      readConfig({
        CODE_REQUESTS_PER_PHONE_PER_HOUR: '1',
        CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY: '100',
        CODE_REQUESTS_PER_PHONE_PER_DAY: '24',
      }),
    ).toThrowError(/CODE_REQUESTS_PER_PHONE_PER_DAY/)
    // 1 an hour from one address is 24 a day, below 25.
    expect(
      codesPerDay(
        readConfig({
          CODE_REQUESTS_PER_PHONE_PER_HOUR: '1',
          CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY: '100',
          CODE_REQUESTS_PER_PHONE_PER_DAY: '25',
        }).limits,
      ).oneClient,
    ).toBe(24)
  })
})

describe('the guessing bound', () => {
  it('a 4-digit code is guessed with a chance of at most 1 % a day, and one address cannot close a phone', () => {
    const { limits } = readConfig({})
    const { oneClient, anyClients, worst } = guessesPerDay(limits)
    console.info(
      `wrong guesses per account per day: one address ${oneClient}, any number of addresses ${anyClients}; chance ${worst / 10_000}`,
    )
    // Locks: 10 failures in each of 6 runs (locks of 30, 60, 120, 240, 480 minutes end within the day) = 60;
    // attempts: 20 an hour x 24 = 480; codes: 10 a day x 5 tries = 50. One address: 50.
    expect(oneClient).toBe(50)
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

describe('someone asking for codes for the owner’s number from one address', () => {
  sharedApp()
  const attacker = '198.51.100.77'
  /** Asks from the address until it is refused; returns the refusal. */
  async function askUntilRefused(from: string) {
    for (let i = 0; i < 1000; i++) {
      const response = await requestCode(owner, from)
      if (response.statusCode !== 200) return response
    }
    throw new Error('never refused')
  }

  it('neither replaces the owner’s code nor stops the owner elsewhere from asking and signing in, all day', async () => {
    expect((await requestCode(owner, ownerAddress)).statusCode).toBe(200)
    const ownersCode = sms.lastCode(owner)
    const refused = await askUntilRefused(attacker)
    expect(refused.statusCode).toBe(429)
    expect(refused.json().message).toBe('인증번호 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.')
    // The owner's code still works, from the owner's address.
    expect((await sign(owner, ownersCode, ownerAddress)).statusCode).toBe(200)
    // Every hour of a day the attacker asks as often as it is allowed; every 3 hours the owner asks,
    // and signs in with the code after the attacker has asked again.
    for (let hour = 1; hour <= 24; hour++) {
      clock.advance(60 * minute)
      await askUntilRefused(attacker)
      if (hour % 3 !== 0) continue
      expect((await requestCode(owner, ownerAddress)).statusCode).toBe(200)
      const code = sms.lastCode(owner)
      await askUntilRefused(attacker)
      expect((await sign(owner, code, ownerAddress)).statusCode).toBe(200)
    }
  })
})

describe('code requests per phone and client', () => {
  sharedApp()
  it('allows 5 an hour and 10 a day from one address for one phone, then 429 with Retry-After', async () => {
    const from = '198.51.100.5'
    for (let i = 0; i < 5; i++) expect((await requestCode(owner, from)).statusCode).toBe(200)
    const hourly = await requestCode(owner, from)
    expect(hourly.statusCode).toBe(429)
    expect(hourly.json().message).toBe('인증번호 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.')
    expect(hourly.headers['retry-after']).toBe(String(60 * 60))
    clock.advance(60 * minute)
    for (let i = 0; i < 5; i++) expect((await requestCode(owner, from)).statusCode).toBe(200)
    clock.advance(60 * minute)
    const daily = await requestCode(owner, from)
    expect(daily.statusCode).toBe(429)
    expect(daily.json().message).toBe('인증번호 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.')
    // The first five leave the day 22 hours from now.
    expect(daily.headers['retry-after']).toBe(String(22 * 60 * 60))
    // Another address asks for the same number, and this address for another number.
    expect((await requestCode(owner, '198.51.100.6')).statusCode).toBe(200)
    expect((await requestCode('01099998888', from)).statusCode).toBe(200)
    clock.advance(22 * 60 * minute)
    expect((await requestCode(owner, from)).statusCode).toBe(200)
  })
})

describe('code requests per phone from an IPv6 client', () => {
  sharedApp()
  it('count its whole /64 as one client', async () => {
    for (let i = 1; i <= 5; i++) {
      expect((await requestCode(owner, `2001:db8:9:9::${i.toString(16)}`)).statusCode).toBe(200)
    }
    expect((await requestCode(owner, '2001:db8:9:9:ffff::1')).statusCode).toBe(429)
    expect((await requestCode(owner, '2001:db8:9:a::1')).statusCode).toBe(200)
  })
})

describe('code requests per phone from all addresses', () => {
  sharedApp()
  it('allows 30 a day, then 429 with Retry-After for every address', async () => {
    // Three addresses, each at its own hourly and daily limits, use the phone's day.
    for (let hour = 0; hour < 2; hour++) {
      for (let address = 1; address <= 3; address++) {
        for (let i = 0; i < 5; i++) {
          expect((await requestCode(owner, `198.51.100.${address}`)).statusCode).toBe(200)
        }
      }
      clock.advance(60 * minute)
    }
    const refused = await requestCode(owner, ownerAddress)
    expect(refused.statusCode).toBe(429)
    expect(refused.json().message).toBe('인증번호 요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.')
    expect(refused.headers['retry-after']).toBe(String(22 * 60 * 60))
    expect(sms.sent.filter((message) => message.to === owner)).toHaveLength(30)
    // Other numbers are not affected.
    expect((await requestCode('01099998888', ownerAddress)).statusCode).toBe(200)
    clock.advance(22 * 60 * minute)
    expect((await requestCode(owner, ownerAddress)).statusCode).toBe(200)
  })
})

describe('code requests at the same moment', () => {
  sharedApp()
  it('take exactly the allowed slots, from one address and from many (separate connections on PostgreSQL)', async () => {
    const fromOne = await Promise.all(Array.from({ length: 8 }, () => requestCode(owner, '198.51.100.200')))
    expect(fromOne.filter((r) => r.statusCode === 200)).toHaveLength(5)
    expect(fromOne.filter((r) => r.statusCode === 429)).toHaveLength(3)
    const fromMany = await Promise.all(
      Array.from({ length: 40 }, (_, i) => requestCode(owner, `192.0.2.${i + 1}`)),
    )
    // 5 taken already: 25 more of the phone's 30 a day.
    expect(fromMany.filter((r) => r.statusCode === 200)).toHaveLength(25)
    expect(fromMany.filter((r) => r.statusCode === 429)).toHaveLength(15)
  })
})
