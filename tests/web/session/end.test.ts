// Every way a session ends takes one path (features/auth/session.ts endSession): the device is wiped the
// same way, and the app lands on the same page ('/', which shows the login screen), through a bounded
// reload where the product's rules say the page reloads.
import Cookies from 'js-cookie'
import { afterEach, beforeEach, describe, expect, it, type Mock, vi } from 'vitest'
import { endSession, logOut, startSessionLife } from '../../../src/features/auth/session.ts'
import { recheckSession } from '../../../src/features/auth/session-check.ts'
import { signIn } from '../../../src/features/auth/sign-in.ts'
import { request } from '../../../src/lib/api.ts'
import { page } from '../../../src/lib/page.ts'
import { useStoreStore, useUserStore } from '../../../src/lib/session-state.ts'
import { fakeServer, json, offline } from '../fake-server.ts'
import { browserWithSubscription } from './push-stub.ts'

const user = { id: 1, name: '김사장', phone: '01012345678', image: null }
const stores = [{ id: 1, name: '역삼점', images: [] }]
let home: Mock<() => void>
let reload: ReturnType<typeof vi.spyOn>
let stop = () => {}

beforeEach(() => {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  Cookies.set('signInId', 'tab-sign-in', { path: '/' })
  useUserStore.setState({ user, isLoggedIn: true })
  useStoreStore.setState({ stores, store: stores[0] ?? null })
  localStorage.setItem('laundry-sales-cache', '{"kept":"figures"}')
  localStorage.setItem('laundry-kept-totals', '{"storeId":1}')
  reload = vi.spyOn(page, 'reload').mockImplementation(() => {})
  vi.spyOn(page, 'confirm').mockReturnValue(true)
  vi.spyOn(page, 'alert').mockImplementation(() => {})
  vi.spyOn(console, 'error').mockImplementation(() => {})
  home = vi.fn()
  // The start-up check that startSessionLife begins finds the session still good.
  fakeServer({ 'GET /api/v0/user': () => json(200, { user, stores }) })
  stop = startSessionLife(home)
})
afterEach(() => stop())

/** The device holds nothing of the session: no tokens, no user, no stores, no kept figures. */
async function expectWiped() {
  await vi.waitFor(() => expect(localStorage.getItem('laundry-sales-cache')).toBeNull())
  expect(Cookies.get('accessToken')).toBeUndefined()
  expect(Cookies.get('refreshToken')).toBeUndefined()
  expect(Cookies.get('signInId')).toBeUndefined()
  expect(useUserStore.getState()).toMatchObject({ user: null, isLoggedIn: false })
  expect(useStoreStore.getState()).toMatchObject({ store: null, stores: [] })
  expect(localStorage.getItem('laundry-kept-totals')).toBeNull()
}

/** The tab goes to the login screen signed out, with the device's kept data set up again for a sign-in to wipe. */
async function signedOut() {
  await endSession()
  home.mockClear()
  localStorage.setItem('laundry-sales-cache', '{"kept":"figures"}')
  localStorage.setItem('laundry-kept-totals', '{"storeId":1}')
}

describe('every way a session ends', () => {
  it('the logout button: wiped, then home', async () => {
    fakeServer({ 'DELETE /api/v0/user/sign': () => new Response(null, { status: 204 }) })
    expect(await logOut()).toBe(true)
    await expectWiped()
    expect(home).toHaveBeenCalledTimes(1)
    expect(reload).not.toHaveBeenCalled()
  })

  it("the logout button offline: the browser's push subscription ends too, so no alert of this user arrives here", async () => {
    const unsubscribe = browserWithSubscription()
    offline()
    expect(await logOut()).toBe(true)
    await expectWiped()
    await vi.waitFor(() => expect(unsubscribe).toHaveBeenCalledTimes(1))
  })

  it('a sign-in the server no longer honours (forced logout): wiped, then home', async () => {
    fakeServer({
      'GET /api/v0/user': () => json(401, { message: '로그인이 만료되었습니다.' }),
      'GET /api/v0/user/sign': () => json(401, { message: '로그인 정보가 올바르지 않습니다.' }),
    })
    await request('/api/v0/user').catch(() => {})
    await expectWiped()
    await vi.waitFor(() => expect(home).toHaveBeenCalledTimes(1))
  })

  it('a sign-in whose cookies are gone (expired) when the app starts: wiped at once, offline too', async () => {
    stop()
    home.mockClear()
    for (const name of ['accessToken', 'refreshToken', 'signInId']) Cookies.remove(name, { path: '/' })
    offline()
    stop = startSessionLife(home)
    // Before anything else runs: the guards see no one signed in, and nothing of the user is shown.
    expect(useUserStore.getState()).toMatchObject({ user: null, isLoggedIn: false })
    await expectWiped()
    await vi.waitFor(() => expect(home).toHaveBeenCalledTimes(1))
  })

  it("another tab's logout: wiped, then home", async () => {
    for (const name of ['accessToken', 'refreshToken', 'signInId']) Cookies.remove(name, { path: '/' })
    // What the browser's Cookie Store tells every tab when a cookie changes (happy-dom does not).
    const cookieStore = (window as { cookieStore?: EventTarget }).cookieStore
    cookieStore?.dispatchEvent(new Event('change'))
    await vi.waitFor(() => expect(home).toHaveBeenCalledTimes(1), { timeout: 2000 })
    await expectWiped()
  })

  it('a user left with no stores at start: wiped, then a reload, and home once the reload was spent', async () => {
    fakeServer({ 'GET /api/v0/user': () => json(200, { user, stores: [] }) })
    await recheckSession(endSession)
    await expectWiped()
    expect(reload).toHaveBeenCalledTimes(1)
    expect(home).not.toHaveBeenCalled()
    // The same within the minute: no second reload, the login screen instead.
    useUserStore.setState({ user, isLoggedIn: true })
    Cookies.set('refreshToken', 'r2', { path: '/' })
    await recheckSession(endSession)
    expect(reload).toHaveBeenCalledTimes(1)
    expect(home).toHaveBeenCalledTimes(1)
  })

  it("the sign-in's own, a user with no stores: alerted, wiped, then a reload, and home once the reload was spent", async () => {
    await signedOut()
    fakeServer({
      'POST /api/v0/user/sign': () => json(200, { token: { access: 'a2', refresh: 'r2' } }),
      'GET /api/v0/user': () => json(200, { user, stores: [] }),
    })
    expect(await signIn('01012345678', '1234')).toBe(false)
    expect(page.alert).toHaveBeenCalledWith('You do not have permission')
    await expectWiped()
    expect(reload).toHaveBeenCalledTimes(1)
    expect(home).not.toHaveBeenCalled()
    // The same within the minute: no second reload, the login screen instead.
    expect(await signIn('01012345678', '1234')).toBe(false)
    await expectWiped()
    expect(reload).toHaveBeenCalledTimes(1)
    expect(home).toHaveBeenCalledTimes(1)
  })

  it("the sign-in's own, tokens stored but no profile to show: wiped, and the form stays to say why", async () => {
    await signedOut()
    fakeServer({
      'POST /api/v0/user/sign': () => json(200, { token: { access: 'a2', refresh: 'r2' } }),
      'GET /api/v0/user': () => json(503, { message: '잠시 후 다시 시도해 주세요.' }),
    })
    expect(await signIn('01012345678', '1234')).toBe(false)
    await expectWiped()
    expect(page.alert).toHaveBeenCalledWith('잠시 후 다시 시도해 주세요.')
    // A failed call reloads the page by its own rule (docs/product.md §4.1), never lands anywhere else.
    expect(reload).toHaveBeenCalledTimes(1)
    expect(home).not.toHaveBeenCalled()
  })
})
