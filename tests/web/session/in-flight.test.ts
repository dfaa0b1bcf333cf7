// The end of a session wins over every answer still in flight: once logout has begun, nothing writes
// tokens, the user and stores, or figures, whatever answers arrive afterwards.
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest'
import { endSession, logOut } from '../../../src/features/auth/session.ts'
import { recheckSession } from '../../../src/features/auth/session-check.ts'
import { usageKeys, usageQuery } from '../../../src/figures/year-query.ts'
import { onSessionEnded, request, StaleSessionError } from '../../../src/lib/api.ts'
import { page } from '../../../src/lib/page.ts'
import { queryClient, restored } from '../../../src/lib/query-client.ts'
import { useStoreStore, useUserStore, wipeDevice } from '../../../src/lib/session-state.ts'
import { removeTokens } from '../../../src/lib/tokens.ts'
import { type Call, fakeServer, json } from '../fake-server.ts'

const user = { id: 1, name: '김사장', phone: '01012345678', image: null }
const stores = [
  { id: 1, name: '역삼점', images: [] },
  { id: 2, name: '선릉점', images: [] },
]
let sessionEnded: Mock<() => void>

/** A promise and the function that settles it: an answer the test hands out when it wants. */
function held<T>() {
  let release = (_value: T) => {}
  const promise = new Promise<T>((resolve) => {
    release = resolve
  })
  return { promise, release }
}

beforeEach(async () => {
  await restored
  queryClient.clear()
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  useUserStore.setState({ user, isLoggedIn: true })
  useStoreStore.setState({ stores, store: stores[0] ?? null })
  vi.spyOn(page, 'confirm').mockReturnValue(true)
  vi.spyOn(page, 'alert').mockImplementation(() => {})
  vi.spyOn(page, 'reload').mockImplementation(() => {})
  vi.spyOn(console, 'error').mockImplementation(() => {})
  sessionEnded = vi.fn(() => void wipeDevice())
  onSessionEnded(sessionEnded)
})

const signOut = () => ({ 'DELETE /api/v0/user/sign': () => new Response(null, { status: 204 }) })
const expectSignedOut = () => {
  expect(Cookies.get('accessToken')).toBeUndefined()
  expect(Cookies.get('refreshToken')).toBeUndefined()
  expect(useUserStore.getState()).toMatchObject({ user: null, isLoggedIn: false })
  expect(useStoreStore.getState()).toMatchObject({ store: null, stores: [] })
  expect(localStorage.getItem('user-sotre')).toBeNull()
  expect(localStorage.getItem('store-store')).toBeNull()
}

describe('logout while answers are in flight', () => {
  it('a token refresh in flight does not write the cookies back', async () => {
    const exchange = held<Response>()
    const server = fakeServer({
      ...signOut(),
      'GET /api/v0/user': (call) =>
        call.authorization === 'Bearer a2'
          ? json(200, { user, stores })
          : json(401, { message: '로그인이 만료되었습니다.' }),
      'GET /api/v0/user/sign': () => exchange.promise,
    })
    const pending = request('/api/v0/user').catch((error: unknown) => error)
    await vi.waitFor(() => expect(server.count('GET /api/v0/user/sign')).toBe(1))
    expect(await logOut()).toBe(true)
    exchange.release(json(200, { token: { access: 'a2', refresh: 'r2' } }))
    const outcome = await pending
    await new Promise((resolve) => setTimeout(resolve, 50))
    expectSignedOut()
    expect(outcome).toBeInstanceOf(StaleSessionError)
    // The exchange was aborted, and the logout is not mistaken for a sign-in the server ended.
    const exchangeCall = server.fetch.mock.calls.find(([url]) => String(url).includes('/user/sign?'))
    expect(exchangeCall?.[1]?.signal?.aborted).toBe(true)
    expect(sessionEnded).not.toHaveBeenCalled()
    // The server was still asked to end the sign-in (the call belongs to no session: not aborted).
    expect(server.count('DELETE /api/v0/user/sign')).toBe(1)
  })

  it('a refresh answered after another tab logged out does not sign this tab in again', async () => {
    const exchange = held<Response>()
    const server = fakeServer({
      'GET /api/v0/user': (call) =>
        call.authorization === 'Bearer a2'
          ? json(200, { user, stores })
          : json(401, { message: '로그인이 만료되었습니다.' }),
      'GET /api/v0/user/sign': () => exchange.promise,
    })
    const pending = request('/api/v0/user').catch((error: unknown) => error)
    await vi.waitFor(() => expect(server.count('GET /api/v0/user/sign')).toBe(1))
    // The other tab's logout removes the shared cookies; this tab has not noticed yet.
    Cookies.remove('accessToken', { path: '/' })
    Cookies.remove('refreshToken', { path: '/' })
    exchange.release(json(200, { token: { access: 'a2', refresh: 'r2' } }))
    await pending
    await vi.waitFor(() => expect(useUserStore.getState().isLoggedIn).toBe(false))
    expect(Cookies.get('accessToken')).toBeUndefined()
    expect(Cookies.get('refreshToken')).toBeUndefined()
    expect(sessionEnded).toHaveBeenCalledTimes(1)
  })

  it('a profile in flight does not bring back the user and stores', async () => {
    const profile = held<Response>()
    const server = fakeServer({ ...signOut(), 'GET /api/v0/user': () => profile.promise })
    const refreshed = recheckSession(endSession)
    await vi.waitFor(() => expect(server.count('GET /api/v0/user')).toBe(1))
    expect(await logOut()).toBe(true)
    profile.release(json(200, { user: { ...user, name: '김대표' }, stores }))
    await refreshed
    await new Promise((resolve) => setTimeout(resolve, 50))
    expectSignedOut()
    expect(sessionEnded).not.toHaveBeenCalled()
  })

  it('a profile whose answer is in but not yet read is not taken in after logout', async () => {
    // The fetch has resolved (nothing left to abort); only its body is still on its way.
    let body = (_text: string) => {}
    const server = fakeServer({
      ...signOut(),
      'GET /api/v0/user': () =>
        new Response(
          new ReadableStream({
            start(controller) {
              body = (text) => {
                controller.enqueue(new TextEncoder().encode(text))
                controller.close()
              }
            },
          }),
          { status: 200 },
        ),
    })
    const refreshed = recheckSession(endSession)
    await vi.waitFor(() => expect(server.count('GET /api/v0/user')).toBe(1))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await logOut()).toBe(true)
    body(JSON.stringify({ user, stores }))
    await refreshed
    expectSignedOut()
  })

  it('figures in flight are neither cached nor kept on the device', async () => {
    const usage = held<Response>()
    const server = fakeServer({
      ...signOut(),
      'GET /api/v0/store/1/usage': (_call: Call) => usage.promise,
    })
    const written: string[] = []
    let loggingOut = false
    const unsubscribe = queryClient.getQueryCache().subscribe((event) => {
      if (loggingOut && event.type === 'updated' && event.query.state.data !== undefined) {
        written.push(JSON.stringify(event.query.queryKey))
      }
    })
    const fetched = queryClient.fetchQuery(usageQuery(1, 2026)).catch((error: unknown) => error)
    await vi.waitFor(() => expect(server.count('GET /api/v0/store/1/usage')).toBe(1))
    loggingOut = true
    const loggedOut = logOut()
    usage.release(json(200, { usages: [{ createdAt: '2026-03-01T09:15:00.000Z', amount: 4321 }] }))
    expect(await loggedOut).toBe(true)
    await fetched
    // The persister writes about a second after the cache changes.
    await new Promise((resolve) => setTimeout(resolve, 1300))
    unsubscribe()
    expect(written).toEqual([])
    expect(queryClient.getQueryData(usageKeys.year(1, 2026))).toBeUndefined()
    expect(localStorage.getItem('laundry-sales-cache') ?? '').not.toContain('4321')
    expectSignedOut()
  })

  it('figures being bucketed when the session ends are dropped', async () => {
    // The answer is in before logout; the session ends while its body is being read and bucketed (as
    // wipeDevice begins, before it reaches the query cache). No piece is asked for before the read.
    const bytes = new TextEncoder().encode(
      '{"usages":[{"createdAt":"2026-03-01T09:15:00.000Z","amount":4321}]}',
    )
    fakeServer({
      'GET /api/v0/store/1/usage': () =>
        new Response(
          new ReadableStream<Uint8Array>(
            {
              pull(controller) {
                controller.enqueue(bytes)
                removeTokens()
                controller.close()
              },
            },
            { highWaterMark: 0 },
          ),
          { headers: { 'content-type': 'application/json' } },
        ),
    })
    const error = await queryClient.fetchQuery(usageQuery(1, 2026)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StaleSessionError)
    expect(queryClient.getQueryData(usageKeys.year(1, 2026))).toBeUndefined()
  })

  it('a request of the ended session never goes on with the next session’s token', async () => {
    const exchange = held<Response>()
    const server = fakeServer({
      'GET /api/v0/store/1/usage': (call) =>
        call.authorization === 'Bearer b1' ? json(200, { usages: [] }) : json(401, { message: 'x' }),
      'GET /api/v0/user/sign': () => exchange.promise,
    })
    const pending = request('/api/v0/store/1/usage?year=2026').catch((error: unknown) => error)
    await vi.waitFor(() => expect(server.count('GET /api/v0/user/sign')).toBe(1))
    await wipeDevice()
    // Someone else signs in on the device.
    Cookies.set('accessToken', 'b1', { path: '/' })
    Cookies.set('refreshToken', 'rb1', { path: '/' })
    exchange.release(json(200, { token: { access: 'a2', refresh: 'r2' } }))
    expect(await pending).toBeInstanceOf(StaleSessionError)
    expect(server.calls.filter((c) => c.authorization === 'Bearer b1')).toEqual([])
    expect(Cookies.get('refreshToken')).toBe('rb1')
  })
})
