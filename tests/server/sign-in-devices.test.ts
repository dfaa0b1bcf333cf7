// Browsers, not addresses: a code is bound to the browser that asked for it, a known device's failures
// and locks are its own, a known device is never worse off than an unknown one, refusals are answered
// from memory, and known devices can be ended. "A browser" here is a cookie jar behind an address: two
// browsers behind one address are a shop's Wi-Fi or a carrier's NAT.
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it, type MockInstance, vi } from 'vitest'
import { addUser, removeUser, signOutEverywhere } from '../../server/db/accounts.ts'
import type { Db } from '../../server/db/client.ts'
import { queryRows } from '../../server/db/client.ts'
import { messages } from '../../server/errors.ts'
import { capturedSms, sharedTestApp, type TestApp, testClock, withAnotherInstance } from './test-app.ts'

const owner = '01012345678'
const shop = '203.0.113.50'
const clock = testClock()
const sms = capturedSms()
const minute = 60_000
const day = 24 * 60 * minute

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

type Answer = Awaited<ReturnType<TestApp['inject']>>

/**
 * A client behind `address`: a browser keeps the cookies it is sent and sends them back to the sign-in
 * routes (one cookie jar); a client that keeps no cookies (a script, another app) sends none.
 */
function client(address: string, { keepsCookies = true, on = () => app } = {}) {
  const jar = new Map<string, string>()
  const headers = () =>
    jar.size ? { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } : {}
  const keep = (answer: Answer) => {
    if (!keepsCookies) return answer
    for (const header of [answer.headers['set-cookie']].flat()) {
      if (header === undefined) continue
      const pair = String(header).split(';')[0] ?? ''
      const equals = pair.indexOf('=')
      jar.set(pair.slice(0, equals), pair.slice(equals + 1))
    }
    return answer
  }
  const self = {
    jar,
    requestCode: async (phone = owner) =>
      keep(
        await on().inject({
          method: 'PUT',
          url: '/api/v0/user/phone',
          payload: { phone },
          remoteAddress: address,
          headers: headers(),
        }),
      ),
    sign: async (code: string, phone = owner) =>
      keep(
        await on().inject({
          method: 'POST',
          url: '/api/v0/user/sign',
          payload: { phone, code },
          remoteAddress: address,
          headers: headers(),
        }),
      ),
    /** Asks for a code and signs in with it. */
    async signsIn(phone = owner) {
      expect((await self.requestCode(phone)).statusCode).toBe(200)
      const signed = await self.sign(sms.lastCode(phone), phone)
      expect(signed.statusCode).toBe(200)
      return signed.json().token as { access: string; refresh: string }
    },
    /**
     * Fails `count` sign-ins with codes of its own (asking for a new one whenever the last has used its
     * tries), never with `spare`; returns the last answer.
     */
    async fails(count: number, spare = '') {
      let last: Answer | undefined
      for (let i = 0; i < count; i++) {
        if (i % 5 === 0) expect((await self.requestCode()).statusCode).toBe(200)
        last = await self.sign(wrongBut(sms.lastCode(owner), spare))
      }
      if (!last) throw new Error('fails(count) needs count > 0')
      return last
    },
  }
  return self
}
const browser = (address: string) => client(address)
const script = (address: string) => client(address, { keepsCookies: false })

/** A 4-digit code that is neither of these. */
function wrongBut(...codes: string[]) {
  for (let n = 0; ; n++) {
    const guess = String(n).padStart(4, '0')
    if (!codes.includes(guess)) return guess
  }
}

describe('two browsers behind one address', () => {
  sharedApp()

  it('a stranger’s browser can neither replace nor end the owner’s code, nor lock the owner’s known device out', async () => {
    const ownersPhone = browser(shop)
    await ownersPhone.signsIn()
    expect((await ownersPhone.requestCode()).statusCode).toBe(200)
    const ownersCode = sms.lastCode(owner)
    // A customer on the shop's Wi-Fi asks for codes for the owner's number and guesses until locked.
    const customer = browser(shop)
    const locked = await customer.fails(10, ownersCode)
    expect(locked.statusCode).toBe(429)
    expect(locked.headers['retry-after']).toBe(String(30 * 60))
    // The owner's code was neither replaced nor ended, and the owner's device is not locked out.
    expect((await ownersPhone.sign(ownersCode)).statusCode).toBe(200)
    await ownersPhone.signsIn()
    // The lock holds for every browser without a credential behind that address (the per-address rule).
    expect((await customer.requestCode()).statusCode).toBe(429)
    expect((await browser(shop).requestCode()).statusCode).toBe(429)
  })

  it('two browsers without a credential each keep their own code', async () => {
    const first = browser(shop)
    const second = browser(shop)
    expect((await first.requestCode()).statusCode).toBe(200)
    const firstCode = sms.lastCode(owner)
    expect((await second.requestCode()).statusCode).toBe(200)
    const secondCode = sms.lastCode(owner)
    // The second browser's tries are compared with its own code only.
    if (firstCode !== secondCode) expect((await second.sign(firstCode)).statusCode).toBe(401)
    expect((await first.sign(firstCode)).statusCode).toBe(200)
    expect((await second.sign(secondCode)).statusCode).toBe(200)
  })

  it('a code request sets the browser’s id, once: HttpOnly, SameSite=Strict, for the sign-in routes, 400 days', async () => {
    const fresh = browser(shop)
    const first = await fresh.requestCode()
    expect(String(first.headers['set-cookie'])).toMatch(
      /^knownDevice=[A-Za-z0-9_-]{22}; Path=\/api\/v0\/user; Max-Age=34560000; HttpOnly; SameSite=Strict$/,
    )
    expect((await fresh.requestCode()).headers['set-cookie']).toBeUndefined()
    // The same answer for an unregistered number.
    const other = await browser(shop).requestCode('01099998888')
    expect(other.body).toBe(first.body)
    expect(String(other.headers['set-cookie'])).toMatch(/^knownDevice=[A-Za-z0-9_-]{22};/)
  })

  it('a browser’s code follows the browser to another address (Wi-Fi to mobile data)', async () => {
    const phone = browser(shop)
    await phone.requestCode()
    const moved = client('192.0.2.80')
    moved.jar.set('knownDevice', phone.jar.get('knownDevice') ?? '')
    expect((await moved.sign(sms.lastCode(owner))).statusCode).toBe(200)
  })

  it('a stranger using up the address’s code requests and attempts does not stop the owner’s known device', async () => {
    const ownersPhone = browser(shop)
    await ownersPhone.signsIn()
    const customer = browser(shop)
    for (let i = 0; i < 100 && (await customer.requestCode()).statusCode === 200; i++);
    expect((await customer.requestCode()).statusCode).toBe(429)
    // 20 attempts an hour from the address, whatever the numbers.
    for (let i = 0; i < 20; i++) await customer.sign('0000', `0101111${String(i).padStart(4, '0')}`)
    expect((await customer.sign('0000', '01055556666')).statusCode).toBe(429)
    expect((await browser(shop).requestCode('01055556666')).statusCode).toBe(200)
    // The owner's known device asks and signs in, behind the same address.
    await ownersPhone.signsIn()
  })
})

describe('a client that keeps no cookies', () => {
  sharedApp()

  it('signs in as before, bound to its address: asking again replaces its code, another address cannot use it', async () => {
    const own = script('198.51.100.20')
    expect((await own.requestCode()).statusCode).toBe(200)
    const first = sms.lastCode(owner)
    let second = first
    while (second === first) {
      await own.requestCode()
      second = sms.lastCode(owner)
    }
    expect((await script('198.51.100.21').sign(second)).statusCode).toBe(401)
    expect((await own.sign(first)).statusCode).toBe(401)
    expect((await own.sign(second)).statusCode).toBe(200)
  })

  it('its failures lock its address out of the number, as before', async () => {
    const own = script('198.51.100.22')
    const locked = await own.fails(10)
    expect(locked.statusCode).toBe(429)
    expect(locked.headers['retry-after']).toBe(String(30 * 60))
    expect((await own.requestCode()).statusCode).toBe(429)
    expect((await script('198.51.100.23').requestCode()).statusCode).toBe(200)
  })
})

describe('a shared store-front browser', () => {
  sharedApp()

  it('spending the known devices’ 20 failures never leaves the owner’s own device worse off than an unknown one', async () => {
    // The owner signed in once on the shop's browser (then logged out: the credential stays), and on
    // the owner's phone.
    const frontDesk = browser(shop)
    await frontDesk.signsIn()
    const ownersPhone = browser('192.0.2.30')
    await ownersPhone.signsIn()
    // Later users of the shop's browser guess: 10, a lock of 30 minutes, and an hour later 10 more (an
    // address's 20 attempts an hour left room for them): the known devices' 20.
    expect((await frontDesk.fails(10)).statusCode).toBe(429)
    clock.advance(60 * minute)
    expect((await frontDesk.fails(10)).statusCode).toBe(429)
    // A browser without the cookie is let in, and so is the owner's own phone.
    expect((await browser('192.0.2.31').requestCode()).statusCode).toBe(200)
    const asked = await ownersPhone.requestCode()
    expect(asked.headers['retry-after']).toBeUndefined()
    expect(asked.statusCode).toBe(200)
    expect((await ownersPhone.sign(sms.lastCode(owner))).statusCode).toBe(200)
  })
})

/** Counts what is asked of the database through `db` (every query starts at one of these). */
function countQueries(db: Db) {
  const spies: MockInstance[] = (
    ['transaction', 'select', 'insert', 'update', 'delete', 'execute'] as const
  ).map((method) => vi.spyOn(db, method))
  return {
    get count() {
      return spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0)
    },
  }
}

describe('refusals answered from memory', () => {
  sharedApp()
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('a refused repeat code request costs no database query, and is refused until the moment the database named', async () => {
    const from = script('198.51.100.40')
    for (let i = 0; i < 5; i++) {
      expect((await from.requestCode()).statusCode).toBe(200)
      clock.advance(minute)
    }
    let started = performance.now()
    const first = await from.requestCode()
    const byDatabase = performance.now() - started
    expect(first.statusCode).toBe(429)
    expect(first.headers['retry-after']).toBe(String(55 * 60))
    const queries = countQueries(app.db)
    started = performance.now()
    for (let i = 0; i < 30; i++) {
      const again = await from.requestCode()
      expect(again.statusCode).toBe(429)
      expect(again.json().message).toBe(messages.tooManyCodes)
      expect(again.headers['retry-after']).toBe(String(55 * 60))
    }
    const fromMemory = (performance.now() - started) / 30
    expect(queries.count).toBe(0)
    console.info(
      `refused code request: ${byDatabase.toFixed(1)} ms from the database, ${fromMemory.toFixed(2)} ms from memory`,
    )
    clock.advance(55 * minute - 1000)
    expect((await from.requestCode()).headers['retry-after']).toBe('1')
    expect(queries.count).toBe(0)
    clock.advance(1000)
    expect((await from.requestCode()).statusCode).toBe(200)
    expect(queries.count).toBeGreaterThan(0)
  })

  it('a locked client’s repeat attempts cost no database query', async () => {
    const from = script('198.51.100.41')
    expect((await from.fails(10)).statusCode).toBe(429)
    const queries = countQueries(app.db)
    for (let i = 0; i < 30; i++) {
      const again = await from.sign('1234')
      expect(again.statusCode).toBe(429)
      expect(again.json().message).toBe(messages.phoneLocked)
      expect(again.headers['retry-after']).toBe(String(30 * 60))
    }
    expect((await from.requestCode()).statusCode).toBe(429)
    expect(queries.count).toBe(0)
  })

  it('what refuses an address never refuses a known device behind it from memory', async () => {
    const ownersPhone = browser(shop)
    await ownersPhone.signsIn()
    const customer = script(shop)
    expect((await customer.fails(10)).statusCode).toBe(429)
    expect((await customer.requestCode()).statusCode).toBe(429)
    await ownersPhone.signsIn()
  })

  it('another instance on the same database refuses from the database, then from its own memory', async () => {
    await withAnotherInstance(app, { clock, sms }, async (other) => {
      const here = script('198.51.100.42')
      const there = client('198.51.100.42', { keepsCookies: false, on: () => other })
      expect((await here.fails(10)).statusCode).toBe(429)
      const refused = await there.requestCode()
      expect(refused.statusCode).toBe(429)
      expect(refused.headers['retry-after']).toBe(String(30 * 60))
      const queries = countQueries(other.db)
      expect((await there.requestCode()).statusCode).toBe(429)
      expect(queries.count).toBe(0)
    })
  })
})

describe('ending known devices', () => {
  sharedApp({ SIGN_FAILURES_PER_PHONE_PER_DAY: '12', CODE_REQUESTS_PER_PHONE_PER_HOUR: '100' })

  /** Strangers from 3 addresses fail 4 times each: the number answers no device but its known devices. */
  async function closeToUnknownDevices() {
    for (let i = 1; i <= 3; i++) await script(`198.51.100.${i}`).fails(4)
    expect((await browser('192.0.2.99').requestCode()).statusCode).toBe(429)
  }

  it('an administrator’s sign-out makes every known-device credential of the number worthless until its next sign-in', async () => {
    const ownersPhone = browser(shop)
    await ownersPhone.signsIn()
    await closeToUnknownDevices()
    expect((await ownersPhone.requestCode()).statusCode).toBe(200)
    await signOutEverywhere(app.db, owner)
    const refused = await ownersPhone.requestCode()
    expect(refused.statusCode).toBe(429)
    expect(refused.json().message).toBe(messages.phoneLocked)
    // A day later the failures have aged out; a sign-in makes the browser a known device again.
    clock.advance(day)
    await ownersPhone.signsIn()
    await closeToUnknownDevices()
    await ownersPhone.signsIn()
  })

  it('remove-user: a number registered again is not known to the former user’s browsers', async () => {
    const formerOwners = browser(shop)
    await formerOwners.signsIn()
    await removeUser(app.db, owner)
    await addUser(app.db, { phone: owner, name: '새 가입자' })
    await closeToUnknownDevices()
    expect((await formerOwners.requestCode()).statusCode).toBe(429)
  })

  it('neither a logout nor a sign-in ended by reuse of a spent refresh token (a logged URL replayed) ends them', async () => {
    const ownersPhone = browser(shop)
    const first = await ownersPhone.signsIn()
    const logout = (refresh: string) =>
      app.inject({ method: 'DELETE', url: `/api/v0/user/sign?token=${refresh}` })
    const exchange = (refresh: string) =>
      app.inject({ method: 'GET', url: `/api/v0/user/sign?token=${refresh}` })
    expect((await logout(first.refresh)).statusCode).toBe(204)
    await closeToUnknownDevices()
    const second = await ownersPhone.signsIn()
    expect((await exchange(second.refresh)).statusCode).toBe(200)
    // Replayed from a proxy's log: the sign-in ends (decision 16), but that is all a URL is worth.
    expect((await exchange(second.refresh)).statusCode).toBe(401)
    expect((await ownersPhone.requestCode()).statusCode).toBe(200)
  })

  it('the cookie keeps one MAC per number: an ended generation’s MAC is dropped at the next sign-in', async () => {
    const ownersPhone = browser(shop)
    await ownersPhone.signsIn()
    await signOutEverywhere(app.db, owner)
    await ownersPhone.signsIn()
    expect(ownersPhone.jar.get('knownDevice')?.split('.')).toHaveLength(2)
  })
})

describe('at the same moment (separate connections on PostgreSQL)', () => {
  sharedApp()

  it('a known device and strangers behind one address take exactly the allowed slots, and never a 5xx', async () => {
    const ownersPhone = browser(shop)
    await ownersPhone.signsIn()
    const stranger = script(shop)
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? ownersPhone.requestCode() : stranger.requestCode())),
    )
    // The known device's own 5 an hour, and what is left of the address's 5 (the owner's first code
    // took one), shared by the stranger and the known device judged as the unknown device it would be.
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(5 + 4)
    expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(24 - 9)
    const signEvents = async () =>
      (
        await queryRows<{ n: number }>(
          app.db,
          sql`select count(*)::int as n from rate_events where key like 'sign:ip:%'`,
        )
      )[0]?.n ?? 0
    const before = await signEvents()
    const attempts = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? ownersPhone.sign('0000') : stranger.sign('0000'))),
    )
    // Each has one code (the stranger's latest replaced its earlier ones), so 5 wrong tries each and
    // then no code: 24 attempts, every one counted, none refused.
    expect(attempts.map((a) => a.statusCode)).toEqual(Array(24).fill(401))
    expect(attempts.filter((a) => a.json().message === messages.wrongCode)).toHaveLength(10)
    expect((await signEvents()) - before).toBe(24)
  })
})
