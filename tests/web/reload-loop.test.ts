// A server that keeps answering empty where an answer is due must not make the app reload forever.
// Our own server never answers these calls empty, so this is tested here, with a fake network that
// always does, and a "page load" that runs the same code again (session storage survives a reload).
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { endSession } from '../../src/features/auth/session.ts'
import { recheckSession } from '../../src/features/auth/session-check.ts'
import { requestCode, signIn } from '../../src/features/auth/sign-in.ts'
import { onSessionEnded, request } from '../../src/lib/api.ts'
import { page } from '../../src/lib/page.ts'
import { useStoreStore, useUserStore, wipeDevice } from '../../src/lib/session-state.ts'
import { fakeServer } from './fake-server.ts'

const empty = () => new Response(null, { status: 200 })
const user = { id: 1, name: '김사장', phone: '01012345678', image: null }
const stores = [{ id: 1, name: '역삼점', images: [] }]
let reload: ReturnType<typeof vi.spyOn>
let alert: ReturnType<typeof vi.spyOn>

beforeEach(() => {
  reload = vi.spyOn(page, 'reload').mockImplementation(() => {})
  alert = vi.spyOn(page, 'alert').mockImplementation(() => {})
  vi.spyOn(console, 'error').mockImplementation(() => {})
  onSessionEnded(() => void wipeDevice())
  useUserStore.setState({ user: null, isLoggedIn: false })
  useStoreStore.setState({ stores: [], store: null })
})

function signedIn() {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  useUserStore.setState({ user, isLoggedIn: true })
  useStoreStore.setState({ stores, store: stores[0] ?? null })
}

describe('a server that always answers empty', () => {
  it('the profile check on start reloads the page once, not on every page load', async () => {
    signedIn()
    const server = fakeServer({ 'GET /api/v0/user': empty })
    for (let load = 0; load < 5; load++) await recheckSession(endSession)
    expect(server.count('GET /api/v0/user')).toBe(5)
    expect(reload).toHaveBeenCalledTimes(1)
  })

  it('the token exchange reloads the page once, not on every request', async () => {
    signedIn()
    fakeServer({
      'GET /api/v0/store/1/usage': () => new Response('{"message":"x"}', { status: 401 }),
      'GET /api/v0/user/sign': empty,
    })
    for (let load = 0; load < 5; load++) {
      await expect(request('/api/v0/store/1/usage?year=2026')).rejects.toThrow()
    }
    expect(reload).toHaveBeenCalledTimes(1)
  })

  it('the code request reloads once, then says so and leaves the form to try again', async () => {
    fakeServer({ 'PUT /api/v0/user/phone': empty })
    for (let load = 0; load < 5; load++) expect(await requestCode('01012345678')).toBeNull()
    expect(reload).toHaveBeenCalledTimes(1)
    expect(alert).toHaveBeenCalledTimes(4)
    expect(alert).toHaveBeenLastCalledWith(expect.stringMatching(/다시 시도해 주세요/))
  })

  it('the sign-in reloads once, then says so and leaves the form to try again', async () => {
    fakeServer({ 'POST /api/v0/user/sign': empty })
    for (let load = 0; load < 5; load++) expect(await signIn('01012345678', '1234')).toBe(false)
    expect(reload).toHaveBeenCalledTimes(1)
    expect(alert).toHaveBeenLastCalledWith(expect.stringMatching(/다시 시도해 주세요/))
    expect(useUserStore.getState().isLoggedIn).toBe(false)
  })

  it('an empty profile after sign-in reloads once, and leaves no tokens behind', async () => {
    fakeServer({
      'POST /api/v0/user/sign': () => Response.json({ token: { access: 'a1', refresh: 'r1' } }),
      'GET /api/v0/user': empty,
    })
    for (let load = 0; load < 5; load++) expect(await signIn('01012345678', '1234')).toBe(false)
    expect(reload).toHaveBeenCalledTimes(1)
    expect(Cookies.get('refreshToken')).toBeUndefined()
    expect(useUserStore.getState().isLoggedIn).toBe(false)
  })
})
