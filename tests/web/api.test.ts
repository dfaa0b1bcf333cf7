import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest'
import {
  EmptyAnswerError,
  HttpError,
  OfflineError,
  onSessionEnded,
  refreshFailedMessage,
  reloadForEmptyAnswer,
  request,
  requestJson,
  SessionEndedError,
} from '../../src/lib/api.ts'
import { page } from '../../src/lib/page.ts'
import { removeTokens } from '../../src/lib/tokens.ts'
import { type Call, fakeServer, json, offline } from './fake-server.ts'

const profile = { user: { id: 1, name: '김사장', phone: '01012345678', image: null }, stores: [] }
let sessionEnded: Mock<() => void>

beforeEach(() => {
  Cookies.set('accessToken', 'old-access', { path: '/' })
  Cookies.set('refreshToken', 'refresh-1', { path: '/' })
  sessionEnded = vi.fn<() => void>()
  onSessionEnded(sessionEnded)
  vi.spyOn(console, 'error').mockImplementation(() => {})
})

/** The profile answers 401 to any token but `valid`. */
const guarded = (valid: string) => (call: Call) =>
  call.authorization === `Bearer ${valid}`
    ? json(200, profile)
    : json(401, { message: '로그인이 만료되었습니다.' })

describe('the fetch wrapper', () => {
  it('sends the stored access token as a bearer header', async () => {
    const server = fakeServer({ 'GET /api/v0/user': guarded('old-access') })
    expect(await requestJson('/api/v0/user')).toEqual(profile)
    expect(server.calls[0]?.authorization).toBe('Bearer old-access')
  })

  it('on a 401 refreshes once, stores the new tokens and retries the request once', async () => {
    const server = fakeServer({
      'GET /api/v0/user': guarded('new-access'),
      'GET /api/v0/user/sign': () => json(200, { token: { access: 'new-access', refresh: 'refresh-2' } }),
    })
    expect(await requestJson('/api/v0/user')).toEqual(profile)
    expect(server.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/v0/user',
      'GET /api/v0/user/sign',
      'GET /api/v0/user',
    ])
    expect(server.calls[1]?.search.get('token')).toBe('refresh-1')
    expect(server.calls[2]?.authorization).toBe('Bearer new-access')
    expect(Cookies.get('accessToken')).toBe('new-access')
    expect(Cookies.get('refreshToken')).toBe('refresh-2')
  })

  it('shares one refresh among concurrent 401s, and retries each request once', async () => {
    let answerRefresh = () => {}
    const refreshed = new Promise<void>((resolve) => {
      answerRefresh = resolve
    })
    const server = fakeServer({
      'GET /api/v0/user': guarded('new-access'),
      'GET /api/v0/store/1/usage': (call) =>
        call.authorization === 'Bearer new-access' ? json(200, { usages: [] }) : json(401, { message: 'x' }),
      'GET /api/v0/user/sign': async () => {
        await refreshed
        return json(200, { token: { access: 'new-access', refresh: 'refresh-2' } })
      },
    })
    const answers = Promise.all([
      requestJson('/api/v0/user'),
      requestJson('/api/v0/store/1/usage?year=2026'),
      requestJson('/api/v0/user'),
    ])
    await vi.waitFor(() => expect(server.count('GET /api/v0/user/sign')).toBe(1))
    answerRefresh()
    expect(await answers).toEqual([profile, { usages: [] }, profile])
    expect(server.count('GET /api/v0/user/sign')).toBe(1)
    expect(server.count('GET /api/v0/user')).toBe(4)
    expect(server.count('GET /api/v0/store/1/usage')).toBe(2)
  })

  it('retries at most once: a second 401 ends the session', async () => {
    const server = fakeServer({
      'GET /api/v0/user': () => json(401, { message: '로그인이 만료되었습니다.' }),
      'GET /api/v0/user/sign': () => json(200, { token: { access: 'new-access', refresh: 'refresh-2' } }),
    })
    await expect(request('/api/v0/user')).rejects.toThrow(SessionEndedError)
    expect(server.calls).toHaveLength(3)
    expect(sessionEnded).toHaveBeenCalledTimes(1)
  })

  it("without a refresh token, rejects with 'Failed to obtain new access token.' and logs it", async () => {
    Cookies.remove('refreshToken', { path: '/' })
    const server = fakeServer({ 'GET /api/v0/user': guarded('never') })
    const error = await request('/api/v0/user').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toBe(refreshFailedMessage)
    expect(console.error).toHaveBeenCalledWith(error)
    expect(server.count('GET /api/v0/user/sign')).toBe(0)
    expect(sessionEnded).toHaveBeenCalledTimes(1)
  })

  it("rejects with 'Failed to obtain new access token.' when the exchange yields no access token", async () => {
    fakeServer({
      'GET /api/v0/user': guarded('never'),
      'GET /api/v0/user/sign': () => json(200, { token: {} }),
    })
    await expect(request('/api/v0/user')).rejects.toThrow(refreshFailedMessage)
    expect(console.error).toHaveBeenCalled()
  })

  it('ends the session when the server refuses the refresh token', async () => {
    fakeServer({
      'GET /api/v0/user': guarded('never'),
      'GET /api/v0/user/sign': () => json(401, { message: '로그인 정보가 올바르지 않습니다.' }),
    })
    await expect(request('/api/v0/user')).rejects.toThrow(SessionEndedError)
    expect(sessionEnded).toHaveBeenCalledTimes(1)
  })

  it('reloads the page when the exchange answers nothing', async () => {
    const reload = vi.spyOn(page, 'reload').mockImplementation(() => {})
    fakeServer({
      'GET /api/v0/user': guarded('never'),
      'GET /api/v0/user/sign': () => new Response(null, { status: 200 }),
    })
    await expect(request('/api/v0/user')).rejects.toThrow(refreshFailedMessage)
    expect(reload).toHaveBeenCalledTimes(1)
  })

  it('does not refresh for public calls: their 401 is the answer', async () => {
    const server = fakeServer({
      'POST /api/v0/user/sign': () => json(401, { message: '인증번호가 일치하지 않습니다.' }),
    })
    const error = await request('/api/v0/user/sign', { method: 'POST', body: {}, auth: false }).catch(
      (e: unknown) => e,
    )
    expect(error).toEqual(new HttpError(401, '인증번호가 일치하지 않습니다.'))
    expect(server.calls).toHaveLength(1)
    expect(server.calls[0]?.authorization).toBeNull()
  })

  it("passes the server's Korean message on in HttpError", async () => {
    fakeServer({
      'GET /api/v0/store/9/usage': () => json(403, { message: '이 매장의 매출을 볼 권한이 없습니다.' }),
    })
    await expect(request('/api/v0/store/9/usage?year=2026')).rejects.toEqual(
      new HttpError(403, '이 매장의 매출을 볼 권한이 없습니다.'),
    )
  })

  it('reports no answer at all as OfflineError, and keeps the session', async () => {
    offline()
    await expect(request('/api/v0/user')).rejects.toThrow(OfflineError)
    expect(sessionEnded).not.toHaveBeenCalled()
    expect(Cookies.get('refreshToken')).toBe('refresh-1')
  })

  it('an empty answer is an EmptyAnswerError naming its call, whose one handler reloads once a minute', async () => {
    fakeServer({
      'PUT /api/v0/user/phone': () => new Response(null, { status: 200 }),
      'GET /api/v0/user': () => new Response('  ', { status: 200 }),
    })
    const reload = vi.spyOn(page, 'reload').mockImplementation(() => {})
    const code = await requestJson('/api/v0/user/phone', {
      method: 'PUT',
      body: { phone: '01012345678' },
    }).catch((error: unknown) => error)
    expect(code).toBeInstanceOf(EmptyAnswerError)
    expect((code as EmptyAnswerError).call).toBe('empty:code')
    const profile = (await requestJson('/api/v0/user').catch((error: unknown) => error)) as EmptyAnswerError
    expect(profile.call).toBe('empty:profile')
    expect(reloadForEmptyAnswer(code as EmptyAnswerError)).toBe(true)
    expect(reloadForEmptyAnswer(code as EmptyAnswerError)).toBe(false)
    expect(reloadForEmptyAnswer(profile)).toBe(true)
    expect(reload).toHaveBeenCalledTimes(2)
  })
})

describe('the attempt key sent with each refresh', () => {
  /**
   * A provider that rotates refresh tokens as ours does: a spent token comes back with the key it was
   * spent with, and the same new pair is given again; with any other key it ends the sign-in.
   * `loseAnswer` drops the answer of the next exchange after the rotation (a weak signal).
   */
  function rotatingServer() {
    const spent = new Map<string, { key: string | null; pair: { access: string; refresh: string } }>()
    let live = 'refresh-1'
    let next = 1
    let validAccess = 'never'
    const state = { loseAnswer: false, ended: false }
    /** The attempt key each exchange carried: the cookie the browser sends with the call. */
    const keys: (string | null)[] = []
    const server = fakeServer({
      'GET /api/v0/user': (call) => guarded(validAccess)(call),
      'GET /api/v0/user/sign': (call) => {
        const token = call.search.get('token') ?? ''
        // The URL holds the token and nothing else: proxies log URLs (the key must never be there).
        expect([...call.search.keys()]).toEqual(['token'])
        const key = Cookies.get('refreshRetryKey') ?? null
        keys.push(key)
        let pair: { access: string; refresh: string }
        const before = spent.get(token)
        if (state.ended) return json(401, { message: '로그인 정보가 올바르지 않습니다.' })
        if (token === live) {
          next += 1
          pair = { access: `access-${next}`, refresh: `refresh-${next}` }
          spent.set(token, { key, pair })
          live = pair.refresh
        } else if (before && key !== null && before.key === key && live === before.pair.refresh) {
          pair = { ...before.pair, access: `${before.pair.access}-again` }
        } else {
          state.ended = true
          return json(401, { message: '로그인 정보가 올바르지 않습니다.' })
        }
        validAccess = pair.access
        if (state.loseAnswer) {
          state.loseAnswer = false
          throw new TypeError('Failed to fetch')
        }
        return json(200, { token: pair })
      },
    })
    return {
      server,
      state,
      keys,
      exchanges: () => server.calls.filter((c) => c.path === '/api/v0/user/sign'),
    }
  }

  it('a refresh whose answer was lost is retried with the same key on the next 401, and the session survives', async () => {
    const { state, keys, exchanges } = rotatingServer()
    state.loseAnswer = true
    await expect(request('/api/v0/user')).rejects.toThrow(OfflineError)
    expect(sessionEnded).not.toHaveBeenCalled()
    expect(Cookies.get('refreshToken')).toBe('refresh-1')

    expect(await requestJson('/api/v0/user')).toEqual(profile)
    const [, retried] = exchanges()
    expect(retried?.search.get('token')).toBe('refresh-1')
    const [lostKey, retriedKey] = keys
    expect(retriedKey).toBe(lostKey)
    expect(lostKey).toMatch(/^[0-9a-f]{32}$/)
    expect(state.ended).toBe(false)
    expect(sessionEnded).not.toHaveBeenCalled()
    expect(Cookies.get('refreshToken')).toBe('refresh-2')
    expect(Cookies.get('accessToken')).toBe('access-2-again')
  })

  it('the key is the sign-in’s: a refresh keeps it, and the next refresh sends it', async () => {
    const { keys, exchanges } = rotatingServer()
    expect(await requestJson('/api/v0/user')).toEqual(profile)
    const first = keys[0]
    expect(first).toMatch(/^[0-9a-f]{32}$/)
    expect(Cookies.get('refreshRetryKey')).toBe(first)

    Cookies.set('accessToken', 'expired', { path: '/' })
    expect(await requestJson('/api/v0/user')).toEqual(profile)
    expect(exchanges()[1]?.search.get('token')).toBe('refresh-2')
    expect(keys[1]).toBe(first)
    expect(Cookies.get('refreshToken')).toBe('refresh-3')
  })

  it('an exchange of a token another tab has just exchanged carries that token’s key, and the sign-in survives', async () => {
    const { keys, state } = rotatingServer()
    // Tab A exchanges refresh-1 for refresh-2 ...
    expect(await requestJson('/api/v0/user')).toEqual(profile)
    // ... while tab B had read refresh-1 before A's answer was written: its call goes out with
    // refresh-1 in the URL and whatever key the cookie holds by then (the browser adds it at send time).
    Cookies.set('refreshToken', 'refresh-1', { path: '/' })
    Cookies.set('accessToken', 'expired', { path: '/' })
    expect(await requestJson('/api/v0/user')).toEqual(profile)
    expect(keys[1]).toBe(keys[0])
    expect(state.ended).toBe(false)
    expect(sessionEnded).not.toHaveBeenCalled()
  })

  it('goes with the tokens when the device signs out', async () => {
    rotatingServer()
    expect(await requestJson('/api/v0/user')).toEqual(profile)
    expect(Cookies.get('refreshRetryKey')).toBeDefined()
    removeTokens()
    expect(Cookies.get()).toEqual({})
  })
})
