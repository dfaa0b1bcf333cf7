import { describe, expect, it } from 'vitest'
import { addUser } from '../../server/db/accounts.ts'
import { REFRESH_RETRY_SECONDS } from '../../server/sign-in/tokens.ts'
import { bearer, capturedSms, createTestApp, sharedTestApp, signIn, testClock } from './test-app.ts'

const owner = '01012345678'
const clock = testClock()
const sms = capturedSms()
const minute = 60_000
const day = 86_400_000

const current = sharedTestApp({
  clock,
  sms,
  setup: (app) => addUser(app.db, { phone: owner, name: '김사장' }),
})

const refresh = (token: string) =>
  current.app.inject({ method: 'GET', url: `/api/v0/user/sign?token=${token}` })
/** A refresh with the client's attempt key, in the cookie the app keeps it in (never in the URL). */
const refreshWith = (token: string, key: string) =>
  current.app.inject({
    method: 'GET',
    url: `/api/v0/user/sign?token=${token}`,
    headers: { cookie: `refreshRetryKey=${key}` },
  })
const keyA = 'attempt-key-a-0123456789abcdef'
const keyB = 'attempt-key-b-0123456789abcdef'
const profile = (access: string) =>
  current.app.inject({ method: 'GET', url: '/api/v0/user', headers: bearer(access) })

describe('access tokens', () => {
  it('are accepted for 15 minutes and refused after', async () => {
    const { access } = await signIn(current.app, sms, owner)
    clock.advance(14 * minute)
    expect((await profile(access)).statusCode).toBe(200)
    clock.advance(minute)
    const expired = await profile(access)
    expect(expired.statusCode).toBe(401)
    expect(expired.json().message).toBe('로그인이 만료되었습니다. 다시 로그인해 주세요.')
  })

  it('refuses a request without a token, with a malformed header, or with a forged token', async () => {
    const missing = await current.app.inject({ method: 'GET', url: '/api/v0/user' })
    expect(missing.statusCode).toBe(401)
    expect(missing.json().message).toBe('로그인이 필요합니다.')
    const malformed = await current.app.inject({
      method: 'GET',
      url: '/api/v0/user',
      headers: { authorization: 'Basic x' },
    })
    expect(malformed.statusCode).toBe(401)
    const { access } = await signIn(current.app, sms, owner)
    const [header, payload] = access.split('.')
    const forged = `${header}.${payload}.${'A'.repeat(43)}`
    expect((await profile(forged)).statusCode).toBe(401)
  })

  it('signed with another secret are refused', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const other = await createTestApp({
      clock,
      env: { JWT_SECRET: 'another-secret-another-secret-another-1' },
    })
    try {
      const response = await other.inject({ method: 'GET', url: '/api/v0/user', headers: bearer(access) })
      expect(response.statusCode).toBe(401)
    } finally {
      await other.close()
    }
  })
})

describe('refresh tokens', () => {
  it('trade for a new pair, and each is spent by its use', async () => {
    const first = await signIn(current.app, sms, owner)
    clock.advance(20 * minute)
    const rotated = await refresh(first.refresh)
    expect(rotated.statusCode).toBe(200)
    const second = rotated.json().token
    expect(second.refresh).not.toBe(first.refresh)
    expect((await profile(second.access)).statusCode).toBe(200)
    expect((await refresh(second.refresh)).statusCode).toBe(200)
  })

  it('presenting a spent token again revokes the whole sign-in', async () => {
    const first = await signIn(current.app, sms, owner)
    const second = (await refresh(first.refresh)).json().token
    const reused = await refresh(first.refresh)
    expect(reused.statusCode).toBe(401)
    expect(reused.json().message).toMatch(/[가-힣]/)
    // The thief's (or the owner's) newer token is dead too.
    expect((await refresh(second.refresh)).statusCode).toBe(401)
  })

  it('revoking one sign-in leaves another sign-in of the same user alone', async () => {
    const phone = await signIn(current.app, sms, owner)
    const laptop = await signIn(current.app, sms, owner)
    await refresh(phone.refresh)
    await refresh(phone.refresh)
    expect((await refresh(laptop.refresh)).statusCode).toBe(200)
  })

  it('last 14 days from sign-in however often they rotate', async () => {
    let token = (await signIn(current.app, sms, owner)).refresh
    for (let i = 0; i < 13; i++) {
      clock.advance(day)
      const rotated = await refresh(token)
      expect(rotated.statusCode).toBe(200)
      token = rotated.json().token.refresh
    }
    clock.advance(day)
    const expired = await refresh(token)
    expect(expired.statusCode).toBe(401)
    expect(expired.json().message).toBe('로그인이 만료되었습니다. 다시 로그인해 주세요.')
  })

  it('an unknown or missing token is refused with a Korean message', async () => {
    const unknown = await refresh('x'.repeat(43))
    expect(unknown.statusCode).toBe(401)
    expect(unknown.json().message).toMatch(/[가-힣]/)
    const missing = await current.app.inject({ method: 'GET', url: '/api/v0/user/sign' })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().message).toMatch(/[가-힣]/)
  })

  it('two concurrent uses of one token: exactly one succeeds', async () => {
    const { refresh: token } = await signIn(current.app, sms, owner)
    const answers = await Promise.all([refresh(token), refresh(token)])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 401])
  })
})

describe('a refresh whose answer was lost, retried with the same attempt key', () => {
  /** A sign-in whose first refresh token was rotated with key A, and the answer the client never got. */
  async function lostAnswer() {
    const first = await signIn(current.app, sms, owner)
    const lost = await refreshWith(first.refresh, keyA)
    expect(lost.statusCode).toBe(200)
    return { first, lost: lost.json().token as { access: string; refresh: string } }
  }

  it('gets the same new refresh token again and a working access token: the sign-in survives', async () => {
    const { first, lost } = await lostAnswer()
    clock.advance(REFRESH_RETRY_SECONDS * 1000)
    const retried = await refreshWith(first.refresh, keyA)
    expect(retried.statusCode).toBe(200)
    const token = retried.json().token
    expect(token.refresh).toBe(lost.refresh)
    expect((await profile(token.access)).statusCode).toBe(200)
    // The same retry may come more than once while the answers keep getting lost.
    expect((await refreshWith(first.refresh, keyA)).json().token.refresh).toBe(lost.refresh)
    const next = await refresh(token.refresh)
    expect(next.statusCode).toBe(200)
    expect((await profile(next.json().token.access)).statusCode).toBe(200)
  })

  it('once the new refresh token was used, the old one with the same key is reuse: the sign-in ends', async () => {
    const { first, lost } = await lostAnswer()
    const next = (await refresh(lost.refresh)).json().token
    const reused = await refreshWith(first.refresh, keyA)
    expect(reused.statusCode).toBe(401)
    expect(reused.json().message).toMatch(/[가-힣]/)
    expect((await refresh(next.refresh)).statusCode).toBe(401)
    expect((await profile(next.access)).statusCode).toBe(401)
  })

  it('with another key, the spent token is reuse: the sign-in ends', async () => {
    const { first, lost } = await lostAnswer()
    expect((await refreshWith(first.refresh, keyB)).statusCode).toBe(401)
    expect((await refresh(lost.refresh)).statusCode).toBe(401)
    expect((await profile(lost.access)).statusCode).toBe(401)
  })

  it(`more than ${REFRESH_RETRY_SECONDS} seconds after the rotation, the spent token is reuse: the sign-in ends`, async () => {
    const { first, lost } = await lostAnswer()
    clock.advance(REFRESH_RETRY_SECONDS * 1000 + 1)
    expect((await refreshWith(first.refresh, keyA)).statusCode).toBe(401)
    expect((await refresh(lost.refresh)).statusCode).toBe(401)
  })

  it('without the key, the spent token is reuse: the sign-in ends', async () => {
    const { first, lost } = await lostAnswer()
    expect((await refresh(first.refresh)).statusCode).toBe(401)
    expect((await refresh(lost.refresh)).statusCode).toBe(401)
  })

  it('a token rotated without a key cannot be retried with one: the sign-in ends', async () => {
    const first = await signIn(current.app, sms, owner)
    const second = (await refresh(first.refresh)).json().token
    expect((await refreshWith(first.refresh, keyA)).statusCode).toBe(401)
    expect((await refresh(second.refresh)).statusCode).toBe(401)
  })

  it('after a logout the retry is refused too', async () => {
    const { first, lost } = await lostAnswer()
    await current.app.inject({ method: 'DELETE', url: `/api/v0/user/sign?token=${lost.refresh}` })
    expect((await refreshWith(first.refresh, keyA)).statusCode).toBe(401)
  })

  it('a new key for each refresh token: the retry of the second rotation needs the second key', async () => {
    const { lost } = await lostAnswer()
    const third = (await refreshWith(lost.refresh, keyB)).json().token
    const retried = await refreshWith(lost.refresh, keyB)
    expect(retried.json().token.refresh).toBe(third.refresh)
    expect(third.refresh).not.toBe(lost.refresh)
  })

  it('a key that is not one (shorter than 16 characters) is no key: the token rotates without one', async () => {
    const first = await signIn(current.app, sms, owner)
    const short = await refreshWith(first.refresh, 'short')
    expect(short.statusCode).toBe(200)
    // Rotated without a key, the spent token cannot be retried: presented again it is reuse.
    expect((await refreshWith(first.refresh, 'short')).statusCode).toBe(401)
    expect((await refresh(short.json().token.refresh)).statusCode).toBe(401)
  })
})

describe('an exchange URL as proxies and APM tools log it', () => {
  // The app's URL once carried the attempt key beside the token (`?token=T&retry=K`): whoever read a
  // log could replay it within 120 s and be given the owner's next token. A key in the URL is no key.
  it('replayed exactly, without cookies and from another address, is reuse: the sign-in ends', async () => {
    const first = await signIn(current.app, sms, owner)
    const logged = `/api/v0/user/sign?token=${first.refresh}&retry=${keyA}`
    const owners = await current.app.inject({
      method: 'GET',
      url: logged,
      remoteAddress: '203.0.113.7',
      headers: { cookie: `refreshRetryKey=${keyA}` },
    })
    expect(owners.statusCode).toBe(200)
    const next = owners.json().token
    clock.advance(20_000)
    const replay = await current.app.inject({ method: 'GET', url: logged, remoteAddress: '198.51.100.66' })
    expect(replay.statusCode).toBe(401)
    expect(replay.json().message).toMatch(/[가-힣]/)
    // Nothing of the sign-in works any more: not the owner's tokens, not a token for the replayer.
    expect((await profile(next.access)).statusCode).toBe(401)
    expect((await refresh(next.refresh)).statusCode).toBe(401)
  })

  it('a key given only in the URL is ignored: the exchange works, but its retry is reuse', async () => {
    const first = await signIn(current.app, sms, owner)
    const url = `/api/v0/user/sign?token=${first.refresh}&retry=${keyA}`
    const rotated = await current.app.inject({ method: 'GET', url })
    expect(rotated.statusCode).toBe(200)
    expect((await current.app.inject({ method: 'GET', url })).statusCode).toBe(401)
    expect((await refresh(rotated.json().token.refresh)).statusCode).toBe(401)
  })

  it('the owner’s retry with the key in the cookie still gets the same token, whatever the URL says', async () => {
    const first = await signIn(current.app, sms, owner)
    const lost = (await refreshWith(first.refresh, keyA)).json().token
    const retried = await current.app.inject({
      method: 'GET',
      url: `/api/v0/user/sign?token=${first.refresh}&retry=${keyB}`,
      headers: { cookie: `refreshRetryKey=${keyA}` },
    })
    expect(retried.statusCode).toBe(200)
    expect(retried.json().token.refresh).toBe(lost.refresh)
  })
})

describe('signing out', () => {
  it('DELETE /user/sign revokes the sign-in: its refresh token no longer works', async () => {
    const { refresh: token } = await signIn(current.app, sms, owner)
    const response = await current.app.inject({ method: 'DELETE', url: `/api/v0/user/sign?token=${token}` })
    expect(response.statusCode).toBe(204)
    expect((await refresh(token)).statusCode).toBe(401)
  })

  it('answers 204 for an unknown token too (it reveals nothing)', async () => {
    const response = await current.app.inject({
      method: 'DELETE',
      url: `/api/v0/user/sign?token=${'y'.repeat(43)}`,
    })
    expect(response.statusCode).toBe(204)
  })

  it('tells the browser to drop its HTTP cache of the origin (Clear-Site-Data: "cache"), a refused call too', async () => {
    const { refresh: token } = await signIn(current.app, sms, owner)
    const signedOut = await current.app.inject({ method: 'DELETE', url: `/api/v0/user/sign?token=${token}` })
    expect(signedOut.statusCode).toBe(204)
    expect(signedOut.headers['clear-site-data']).toBe('"cache"')
    const refused = await current.app.inject({ method: 'DELETE', url: '/api/v0/user/sign' })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().message).toMatch(/[가-힣]/)
    expect(refused.headers['clear-site-data']).toBe('"cache"')
  })
})

describe('what the server writes down', () => {
  it('never logs the refresh token, and sends no referrer', async () => {
    const lines: string[] = []
    const logged = await createTestApp({ clock, sms, logStream: { write: (line) => lines.push(line) } })
    try {
      await addUser(logged.db, { phone: owner, name: '김사장' })
      const { refresh: token } = await signIn(logged, sms, owner)
      const rotated = await logged.inject({
        method: 'GET',
        url: `/api/v0/user/sign?token=${token}&retry=${keyA}`,
      })
      await logged.inject({ method: 'GET', url: `/api/v0/user/sign?token=${token}&retry=${keyA}` })
      await logged.inject({ method: 'GET', url: `/api/v0/user/sign?token=${token}` })
      await logged.inject({
        method: 'DELETE',
        url: `/api/v0/user/sign?token=${rotated.json().token.refresh}`,
      })
      expect(lines.join('\n')).toContain('/api/v0/user/sign?token=[redacted]')
      expect(lines.join('\n')).toContain('&retry=[redacted]')
      expect(lines.join('\n')).not.toContain(token)
      expect(lines.join('\n')).not.toContain(keyA)
      expect(lines.join('\n')).not.toContain(rotated.json().token.refresh)
      expect(rotated.headers['referrer-policy']).toBe('no-referrer')
      expect(rotated.headers['cache-control']).toBe('no-store')
    } finally {
      await logged.close()
    }
  })

  it('stores neither codes nor refresh tokens nor attempt keys in the clear', async () => {
    const { refresh: token } = await signIn(current.app, sms, owner)
    const next = (await refreshWith(token, keyA)).json().token.refresh
    await current.app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone: owner } })
    const code = sms.lastCode(owner)
    const dump = JSON.stringify([
      await current.app.db.execute('select * from refresh_tokens'),
      await current.app.db.execute('select * from login_codes'),
    ])
    expect(dump).not.toContain(token)
    expect(dump).not.toContain(next)
    expect(dump).not.toContain(keyA)
    expect(dump).toContain('retry_key_hash')
    expect(dump).not.toMatch(new RegExp(`"${code}"`))
  })
})
