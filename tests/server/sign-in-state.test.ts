// A sign-in ends for good, everywhere: a refresh token presented twice at once, a logout racing a
// refresh, and access tokens after logout, reuse detection, deletion of the user, and on a second
// instance. On PostgreSQL the races are real: each request runs on its own pooled connection.
import { eq } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { addUser } from '../../server/db/accounts.ts'
import { users } from '../../server/db/schema.ts'
import { signInCheckMs } from '../../server/sign-in/access-tokens.ts'
import {
  bearer,
  capturedSms,
  sharedTestApp,
  type TestApp,
  testClock,
  withAnotherInstance,
} from './test-app.ts'

const owner = '01012345678'
const clock = testClock()
const sms = capturedSms()
let userId = 0

const current = sharedTestApp({
  clock,
  sms,
  setup: async (app) => {
    userId = await addUser(app.db, { phone: owner, name: '김사장' })
  },
})

const refresh = (token: string, app: TestApp = current.app) =>
  app.inject({ method: 'GET', url: `/api/v0/user/sign?token=${token}` })
/** A refresh with the attempt key in the cookie the app keeps it in. */
const refreshWith = (token: string, key: string) =>
  current.app.inject({
    method: 'GET',
    url: `/api/v0/user/sign?token=${token}`,
    headers: { cookie: `refreshRetryKey=${key}` },
  })
const logout = (token: string, app: TestApp = current.app) =>
  app.inject({ method: 'DELETE', url: `/api/v0/user/sign?token=${token}` })
const profile = (access: string, app: TestApp = current.app) =>
  app.inject({ method: 'GET', url: '/api/v0/user', headers: bearer(access) })

/** Whether any token an answer handed out still works: its refresh token, or its access token. */
async function survivors(answers: { statusCode: number; json(): unknown }[]) {
  let alive = 0
  for (const answer of answers) {
    if (answer.statusCode !== 200) continue
    const { token } = answer.json() as { token: { access: string; refresh: string } }
    if ((await profile(token.access)).statusCode === 200) alive++
    if ((await refresh(token.refresh)).statusCode === 200) alive++
  }
  return alive
}

/** Runs `race` on `count` fresh sign-ins, `batch` of them at a time (two requests each, on the pool of 10). */
async function raceMany(count: number, race: (refreshToken: string) => Promise<{ statusCode: number }[]>) {
  const signIns = []
  for (let i = 0; i < count; i++) signIns.push(await current.app.tokens.start(userId))
  const outcomes: Awaited<ReturnType<typeof race>>[] = []
  const batch = 5
  for (let i = 0; i < count; i += batch) {
    outcomes.push(...(await Promise.all(signIns.slice(i, i + batch).map((pair) => race(pair.refresh)))))
  }
  return { signIns, outcomes }
}

describe('one refresh token presented twice at once', () => {
  it('100 races: one answer wins, the other ends the sign-in, and no token of it survives', async () => {
    const { outcomes } = await raceMany(100, (token) => Promise.all([refresh(token), refresh(token)]))
    for (const pair of outcomes) expect(pair.map((a) => a.statusCode).sort()).toEqual([200, 401])
    const alive = await survivors(outcomes.flat() as { statusCode: number; json(): unknown }[])
    console.info(`reuse races: ${alive} working tokens left after 100 pairs`)
    expect(alive).toBe(0)
  }, 120_000)
})

describe('one refresh token presented twice at once with attempt keys', () => {
  it('100 races with two different keys: one answer wins, the other ends the sign-in, and no token survives', async () => {
    let n = 0
    const { outcomes } = await raceMany(100, (token) => {
      n++
      return Promise.all([
        refreshWith(token, `first-key-${n}-0123456789`),
        refreshWith(token, `other-key-${n}-0123456789`),
      ])
    })
    for (const pair of outcomes) expect(pair.map((a) => a.statusCode).sort()).toEqual([200, 401])
    const alive = await survivors(outcomes.flat() as { statusCode: number; json(): unknown }[])
    console.info(`reuse races with distinct keys: ${alive} working tokens left after 100 pairs`)
    expect(alive).toBe(0)
  }, 120_000)

  it('100 races with one key and without: one answer wins, the other ends the sign-in, and no token survives', async () => {
    const { outcomes } = await raceMany(100, (token) =>
      Promise.all([refreshWith(token, 'the-owners-key-0123456789'), refresh(token)]),
    )
    for (const pair of outcomes) expect(pair.map((a) => a.statusCode).sort()).toEqual([200, 401])
    const alive = await survivors(outcomes.flat() as { statusCode: number; json(): unknown }[])
    expect(alive).toBe(0)
  }, 120_000)

  it('20 races with the same key (only the holder of both can): both get the same token, which stays one token', async () => {
    const { outcomes } = await raceMany(20, (token) =>
      Promise.all([
        refreshWith(token, 'the-owners-key-0123456789'),
        refreshWith(token, 'the-owners-key-0123456789'),
      ]),
    )
    for (const pair of outcomes as { statusCode: number; json(): unknown }[][]) {
      expect(pair.map((a) => a.statusCode)).toEqual([200, 200])
      const [first, second] = pair.map((a) => (a.json() as { token: { refresh: string } }).token.refresh)
      if (!first || !second) throw new Error('two answers expected')
      expect(first).toBe(second)
      // One token: its first use rotates it, a second use of it is reuse and ends the sign-in.
      expect((await refresh(first)).statusCode).toBe(200)
      expect((await refresh(second)).statusCode).toBe(401)
    }
  }, 120_000)
})

describe('logging out while a refresh of the same token is in flight', () => {
  it('100 races of DELETE and GET /user/sign: whichever wins, no token of the sign-in works', async () => {
    const { signIns, outcomes } = await raceMany(100, (token) => Promise.all([refresh(token), logout(token)]))
    for (const [rotated, out] of outcomes) {
      expect(out?.statusCode).toBe(204)
      expect([200, 401]).toContain(rotated?.statusCode)
    }
    const wins = outcomes.filter(([rotated]) => rotated?.statusCode === 200).length
    console.info(`logout races: the refresh answered 200 in ${wins} of 100`)
    const alive = await survivors(
      outcomes.map(([rotated]) => rotated) as { statusCode: number; json(): unknown }[],
    )
    expect(alive).toBe(0)
    for (const pair of signIns.slice(0, 10)) {
      expect((await profile(pair.access)).statusCode).toBe(401)
      expect((await refresh(pair.refresh)).statusCode).toBe(401)
    }
  }, 120_000)
})

describe('access tokens end with their sign-in', () => {
  it('at once on logout, even when the token was just used', async () => {
    const pair = await current.app.tokens.start(userId)
    expect((await profile(pair.access)).statusCode).toBe(200)
    expect((await logout(pair.refresh)).statusCode).toBe(204)
    const refused = await profile(pair.access)
    expect(refused.statusCode).toBe(401)
    expect(refused.json().message).toBe('로그인이 만료되었습니다. 다시 로그인해 주세요.')
  })

  it('at once when reuse of a spent refresh token ends the sign-in', async () => {
    const first = await current.app.tokens.start(userId)
    const second = (await refresh(first.refresh)).json().token
    expect((await profile(second.access)).statusCode).toBe(200)
    expect((await refresh(first.refresh)).statusCode).toBe(401)
    expect((await profile(first.access)).statusCode).toBe(401)
    expect((await profile(second.access)).statusCode).toBe(401)
  })

  it(`within ${signInCheckMs} ms when the user is deleted (an admin's change, outside the server)`, async () => {
    const pair = await current.app.tokens.start(userId)
    expect((await profile(pair.access)).statusCode).toBe(200)
    await current.app.db.delete(users).where(eq(users.id, userId))
    clock.advance(signInCheckMs)
    // Refused by the guard of every signed-in route, not only by routes that read the user.
    await expect(current.app.tokens.verifyAccess(pair.access)).rejects.toMatchObject({ statusCode: 401 })
    expect((await profile(pair.access)).statusCode).toBe(401)
    expect((await refresh(pair.refresh)).statusCode).toBe(401)
  })

  it('when the sign-in reaches its 14 days, though the access token has minutes left', async () => {
    const pair = await current.app.tokens.start(userId)
    clock.advance(14 * 86_400_000 - 60_000)
    const last = (await refresh(pair.refresh)).json().token
    expect((await profile(last.access)).statusCode).toBe(200)
    clock.advance(60_000 + signInCheckMs)
    expect((await profile(last.access)).statusCode).toBe(401)
  })

  it(`on a second instance on the same database within ${signInCheckMs} ms of a logout on the first`, async () => {
    await withAnotherInstance(current.app, { clock }, async (other) => {
      const pair = await current.app.tokens.start(userId)
      // Both instances have checked the sign-in and keep it as live.
      expect((await profile(pair.access, other)).statusCode).toBe(200)
      expect((await profile(pair.access)).statusCode).toBe(200)
      expect((await logout(pair.refresh)).statusCode).toBe(204)
      expect((await profile(pair.access)).statusCode).toBe(401)
      clock.advance(signInCheckMs)
      expect((await profile(pair.access, other)).statusCode).toBe(401)

      // And the other way round, for reuse detected on the second instance.
      const next = await current.app.tokens.start(userId)
      expect((await profile(next.access)).statusCode).toBe(200)
      const rotated = (await refresh(next.refresh, other)).json().token
      expect((await refresh(next.refresh, other)).statusCode).toBe(401)
      expect((await profile(rotated.access, other)).statusCode).toBe(401)
      clock.advance(signInCheckMs)
      expect((await profile(next.access)).statusCode).toBe(401)
    })
  })

  it('a live sign-in is read from the database at most once per interval (figures printed)', async () => {
    const pair = await current.app.tokens.start(userId)
    expect((await profile(pair.access)).statusCode).toBe(200)
    const rounds = 200
    const started = performance.now()
    for (let i = 0; i < rounds; i++) await current.app.tokens.verifyAccess(pair.access)
    const perCheck = (performance.now() - started) / rounds
    console.info(`access token check with the sign-in's state in memory: ${(perCheck * 1000).toFixed(0)} µs`)
    clock.advance(signInCheckMs)
    const reread = performance.now()
    await current.app.tokens.verifyAccess(pair.access)
    console.info(`access token check that reads the sign-in: ${(performance.now() - reread).toFixed(2)} ms`)
  })
})
