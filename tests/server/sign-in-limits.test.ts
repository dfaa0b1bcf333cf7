// The limits on sign-in attempts: per client, per code's requester, per (phone, client) lock, and the
// phone-wide daily bound that caps guesses at one account whatever the number of addresses.
import { describe, expect, it } from 'vitest'
import { readConfig } from '../../server/config.ts'
import { addUser } from '../../server/db/accounts.ts'
import { messages } from '../../server/errors.ts'
import { createKnownDevices, knownPhonesPerDevice } from '../../server/sign-in/known-device.ts'
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
  // Any number of clients: failures from all unknown devices together stop at the phone's daily bound,
  // and failures from all its known devices (the owner's, or a thief's holding a stolen credential,
  // from any number of addresses) at their own daily bound.
  const unknownDevices = limits.signFailuresPerPhonePerDay
  const knownDevices = limits.signFailuresPerPhoneKnownDevicesPerDay
  const anyClients = unknownDevices + knownDevices
  return { oneClient, unknownDevices, knownDevices, anyClients, worst: Math.max(oneClient, anyClients) }
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
    const { oneClient, unknownDevices, knownDevices, anyClients, worst } = guessesPerDay(limits)
    console.info(
      `wrong guesses per account per day: one address ${oneClient}; any number of addresses ${unknownDevices} from unknown devices + ${knownDevices} from known devices = ${anyClients}; chance ${worst / 10_000}`,
    )
    // Locks: 10 failures in each of 6 runs (locks of 30, 60, 120, 240, 480 minutes end within the day) = 60;
    // attempts: 20 an hour x 24 = 480; codes: 10 a day x 5 tries = 50. One address: 50.
    expect(oneClient).toBe(50)
    // Unknown devices 80 + known devices 20 = 100 guesses of 10,000: a 1 % chance a day at most.
    expect(anyClients).toBe(limits.signFailuresPerPhonePerDay + limits.signFailuresPerPhoneKnownDevicesPerDay)
    expect(worst / 10_000).toBeLessThanOrEqual(0.01)
    // The phone-wide refusal of unknown devices needs failures from more than one address.
    expect(oneClient).toBeLessThan(unknownDevices)
  })

  it('no configuration can raise the bound above 1 % a day, known devices counted', () => {
    expect(() => readConfig({ SIGN_FAILURES_PER_PHONE_PER_DAY: '101' })).toThrowError(
      /SIGN_FAILURES_PER_PHONE_PER_DAY/,
    )
    // Each window alone may be raised only as far as the other leaves room under 100.
    expect(() => readConfig({ SIGN_FAILURES_PER_PHONE_PER_DAY: '100' })).toThrowError(
      /SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY=20 must add up to at most 100 \(120\)/,
    )
    expect(() => readConfig({ SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY: '21' })).toThrowError(
      /must add up to at most 100 \(101\)/,
    )
    for (const [unknown, known] of [
      ['99', '1'],
      ['80', '20'],
      ['1', '99'],
    ]) {
      const loosest = readConfig({
        SIGN_FAILURES_PER_PHONE_PER_DAY: unknown,
        SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY: known,
        SIGN_ATTEMPTS_PER_IP_PER_HOUR: '100000',
      })
      expect(guessesPerDay(loosest.limits).anyClients / 10_000).toBeLessThanOrEqual(0.01)
    }
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
/** `cookie`: the Cookie header the browser sends, such as a known-device credential. */
const requestCode = (phone: string, remoteAddress: string, cookie?: string) =>
  app.inject({
    method: 'PUT',
    url: '/api/v0/user/phone',
    payload: { phone },
    remoteAddress,
    headers: cookie ? { cookie } : {},
  })
const sign = (phone: string, code: string, remoteAddress: string, cookie?: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v0/user/sign',
    payload: { phone, code },
    remoteAddress,
    headers: cookie ? { cookie } : {},
  })
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

// Known devices: a browser that has signed in to a number before carries a credential for it (an
// HttpOnly cookie) that exempts it from the number's daily bounds, which strangers who never received a
// code could otherwise use up, closing the number to its owner for a day.
const defaults = readConfig({}).limits
const day = 24 * 60 * minute

/** The Cookie header a browser sends back after this answer: its known-device cookie. */
function knownDeviceOf(response: { headers: Record<string, unknown> }): string {
  const set = [response.headers['set-cookie']].flat().map(String)
  const cookie = set.find((header) => header.startsWith('knownDevice='))?.split(';')[0]
  if (!cookie) throw new Error(`no known-device cookie in ${JSON.stringify(set)}`)
  return cookie
}

/** The owner asks for a code and signs in with it; returns the cookie the browser keeps. */
async function ownerSignsIn(from: string, cookie?: string, phone = owner) {
  const asked = await requestCode(phone, from, cookie)
  expect(asked.statusCode).toBe(200)
  const signed = await sign(phone, sms.lastCode(phone), from, cookie)
  expect(signed.statusCode).toBe(200)
  return knownDeviceOf(signed)
}

/** Asks from the address until it is refused; returns the refusal. */
async function codesUntilRefused(from: string, cookie?: string) {
  for (let i = 0; i < 1000; i++) {
    const response = await requestCode(owner, from, cookie)
    if (response.statusCode !== 200) return response
  }
  throw new Error('never refused')
}

/** Each address asks for codes and fails with them until its first lock; returns the failures made. */
async function failFrom(addresses: string[], cookie?: string) {
  let failures = 0
  for (const from of addresses) {
    for (let made = 0; made < defaults.signFailuresBeforeLock; ) {
      expect((await requestCode(owner, from, cookie)).statusCode).toBe(200)
      for (let i = 0; i < defaults.codeMaxTries && made < defaults.signFailuresBeforeLock; i++, made++) {
        const attempt = await sign(owner, wrong(sms.lastCode(owner)), from, cookie)
        expect(attempt.statusCode).toBe(made + 1 === defaults.signFailuresBeforeLock ? 429 : 401)
      }
    }
    failures += defaults.signFailuresBeforeLock
  }
  return failures
}

const addresses = (count: number, prefix = '198.51.100') =>
  Array.from({ length: count }, (_, i) => `${prefix}.${i + 1}`)

describe('a known device, while strangers use the phone’s day of codes', () => {
  sharedApp({ CODE_REQUESTS_PER_PHONE_PER_HOUR: '10' })
  it('still gets a code and signs in, from anywhere; an unknown device is refused', async () => {
    const device = await ownerSignsIn(ownerAddress)
    // Addresses that never received a code ask for the owner's number until each is refused: 3 of
    // them (10 a day each) use what is left of the phone's 30 a day.
    const strangers = Math.ceil(
      defaults.codeRequestsPerPhonePerDay / defaults.codeRequestsPerPhonePerClientPerDay,
    )
    expect(strangers).toBe(3)
    for (const from of addresses(strangers)) expect((await codesUntilRefused(from)).statusCode).toBe(429)
    expect(sms.sent.filter((message) => message.to === owner)).toHaveLength(
      defaults.codeRequestsPerPhonePerDay,
    )
    // A device that has never signed in to the number is refused, as before.
    const unknown = await requestCode(owner, '192.0.2.50')
    expect(unknown.statusCode).toBe(429)
    expect(unknown.json().message).toBe(messages.tooManyCodes)
    expect((await requestCode(owner, ownerAddress)).statusCode).toBe(429)
    // The owner's own browser gets a code and signs in, at the shop and from a new network.
    const kept = await ownerSignsIn(ownerAddress, device)
    expect(kept).toBe(device)
    expect(await ownerSignsIn('192.0.2.77', device)).toBe(device)
    // Still within its own limits: 10 a day from the device, wherever it asks (and then, judged as the
    // unknown device it would be without the cookie, refused with them: the phone's day is used up).
    const own = await codesUntilRefused(ownerAddress, device)
    expect(own.statusCode).toBe(429)
    expect(own.json().message).toBe(messages.tooManyCodes)
    // The phone's 30 (the owner's first among them), and the device's own 10.
    expect(sms.sent.filter((message) => message.to === owner)).toHaveLength(
      defaults.codeRequestsPerPhonePerDay + defaults.codeRequestsPerPhonePerClientPerDay,
    )
  })
})

describe('codes for known devices', () => {
  sharedApp({ CODE_REQUESTS_PER_PHONE_PER_HOUR: '10' })
  it('count against a day of their own: a stolen credential from many addresses cannot run up the SMS bill', async () => {
    const device = await ownerSignsIn(ownerAddress)
    sms.clear()
    // A thief holding the credential asks from one new address after another until refused everywhere:
    // as the known device (whose own 10 a day count wherever it asks), and once that is refused, as
    // the unknown device it would be without the cookie (each address's 10, then the phone's 30, of
    // which the owner's first sign-in took one).
    for (const from of addresses(10, '203.0.113')) {
      expect((await codesUntilRefused(from, device)).statusCode).toBe(429)
    }
    expect(sms.sent).toHaveLength(
      defaults.codeRequestsPerPhonePerClientPerDay + defaults.codeRequestsPerPhonePerDay - 1,
    )
    // Never more than the known devices' 30 and the phone's 30 a day, whoever asks.
    expect(sms.sent.length).toBeLessThanOrEqual(2 * defaults.codeRequestsPerPhonePerDay)
    expect((await requestCode(owner, '192.0.2.99', device)).statusCode).toBe(429)
    expect((await requestCode(owner, '192.0.2.100')).statusCode).toBe(429)
  })
})

describe('a known device, while strangers reach the phone’s daily failures', () => {
  sharedApp()
  it('still signs in; an unknown device is refused until the failures age out', async () => {
    const device = await ownerSignsIn(ownerAddress)
    // Each stranger asks for codes of its own and fails until its first lock: 8 addresses make 80.
    const strangers = Math.ceil(defaults.signFailuresPerPhonePerDay / defaults.signFailuresBeforeLock)
    expect(strangers).toBe(8)
    expect(await failFrom(addresses(strangers))).toBe(defaults.signFailuresPerPhonePerDay)
    for (const from of ['192.0.2.50', ownerAddress]) {
      const refused = await requestCode(owner, from)
      expect(refused.statusCode).toBe(429)
      expect(refused.json().message).toBe(messages.phoneLocked)
      expect(refused.headers['retry-after']).toBe(String(24 * 60 * 60))
      expect((await sign(owner, '0000', from)).statusCode).toBe(429)
    }
    // The owner's own browser asks for a code and signs in.
    expect(await ownerSignsIn(ownerAddress, device)).toBe(device)
    expect(await ownerSignsIn('192.0.2.77', device)).toBe(device)
  })
})

describe('a known-device credential', () => {
  sharedApp({ SIGN_FAILURES_PER_PHONE_PER_DAY: '12', CODE_REQUESTS_PER_PHONE_PER_HOUR: '100' })
  const other = '01099998888'

  it('is honoured only for the number and device id the server made it for', async () => {
    await addUser(app.db, { phone: other, name: '이사장' })
    const device = await ownerSignsIn(ownerAddress)
    const otherDevice = await ownerSignsIn('192.0.2.60', undefined, other)
    const [deviceId = '', mac = ''] = device.slice('knownDevice='.length).split('.')
    const [otherId = '', otherMac = ''] = otherDevice.slice('knownDevice='.length).split('.')
    expect(deviceId).not.toBe(otherId)
    // Strangers close the number to unknown devices: 3 addresses x 4 failures.
    for (const from of addresses(3)) {
      await requestCode(owner, from)
      for (let i = 0; i < 4; i++) await sign(owner, wrong(sms.lastCode(owner)), from)
    }
    const forgeries = {
      'another number’s credential': otherDevice,
      'another number’s MAC under the owner’s device id': `knownDevice=${deviceId}.${otherMac}`,
      'the owner’s MAC under another device id': `knownDevice=${otherId}.${mac}`,
      'a made-up MAC': `knownDevice=${deviceId}.${'A'.repeat(22)}`,
      'the device id alone': `knownDevice=${deviceId}`,
      'a truncated MAC': `knownDevice=${deviceId}.${mac.slice(0, 21)}`,
      'not a credential': 'knownDevice=%%%;.',
      'the credential under another name': `signInId=${device.slice('knownDevice='.length)}`,
    }
    for (const [what, cookie] of Object.entries(forgeries)) {
      const asked = await requestCode(owner, ownerAddress, cookie)
      expect(asked.statusCode, what).toBe(429)
      expect(asked.json().message, what).toBe(messages.phoneLocked)
      expect((await sign(owner, '0000', ownerAddress, cookie)).statusCode, what).toBe(429)
    }
    // The real one is, also among other cookies.
    await ownerSignsIn(ownerAddress, `accessToken=x; ${device}; signInId=y`)
  })

  it('keeps the last numbers signed in on one browser, under one device id', () => {
    const known = createKnownDevices('test-secret-test-secret-test-secret-0123')
    const phones = Array.from({ length: knownPhonesPerDevice + 1 }, (_, i) => `0101000000${i}`)
    let cookie: string | undefined
    for (const phone of phones) cookie = `knownDevice=${known.afterSignIn(cookie, phone)}`
    const [first, ...rest] = phones
    expect(known.isKnown(cookie, first ?? '')).toBe(false)
    for (const phone of rest) expect(known.isKnown(cookie, phone), phone).toBe(true)
    // Signing in again moves a number to the front without repeating it; the device id stays.
    const again = `knownDevice=${known.afterSignIn(cookie, rest[3] ?? '')}`
    expect(again.split('.')).toHaveLength(1 + knownPhonesPerDevice)
    expect(again.split('.')[0]).toBe(cookie?.split('.')[0])
    for (const phone of rest) expect(known.isKnown(again, phone), phone).toBe(true)
    // Nothing in it is a number in clear.
    for (const phone of phones) expect(again).not.toContain(phone)
    // Another server secret honours none of them.
    const elsewhere = createKnownDevices('another-secret-another-secret-0123456')
    for (const phone of rest) expect(elsewhere.isKnown(again, phone)).toBe(false)
  })
})

describe('failures from known devices', () => {
  sharedApp()
  it('count against their own daily window, whatever the number of addresses; once it is spent they are judged as unknown devices, and 80 + 20 close the number', async () => {
    const device = await ownerSignsIn(ownerAddress)
    // Someone holding the owner's credential tries from one address after another. The device's own
    // lock ladder holds wherever it tries (its failures and locks are the device's, not an address's):
    // 10 failures lock it for 30 minutes, and 10 more after the lock use the known devices' 20.
    expect(await failFrom(['198.51.100.1'], device)).toBe(defaults.signFailuresBeforeLock)
    clock.advance(30 * minute)
    expect(await failFrom(['198.51.100.2'], device)).toBe(defaults.signFailuresBeforeLock)
    // The known devices' window is spent: a known device is now judged as the unknown device it would
    // be without the cookie, so the owner's own device, elsewhere, is let in as an unknown one would be.
    expect(await ownerSignsIn('192.0.2.99', device)).toBe(device)
    // Those failures took nothing of the unknown devices' window: they all remain, and then it closes
    // (the owner's credential fails as an unknown device from there on).
    expect(await failFrom(addresses(8, '203.0.113'), device)).toBe(defaults.signFailuresPerPhonePerDay)
    for (const cookie of [device, undefined]) {
      const refused = await requestCode(owner, '192.0.2.100', cookie)
      expect(refused.statusCode).toBe(429)
      expect(refused.json().message).toBe(messages.phoneLocked)
      expect((await sign(owner, '0000', '192.0.2.100', cookie)).statusCode).toBe(429)
    }
    // 80 + 20 failures: the most any guesser, with or without a credential, makes in a day.
    clock.advance(day)
    expect(await ownerSignsIn(ownerAddress, device)).toBe(device)
  })
})
