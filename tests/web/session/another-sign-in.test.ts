// A tab belongs to one sign-in. Another user signing in in another tab (after a logout there) while
// this tab was not looking signs this tab out, and nothing of its old session is taken in afterwards;
// tokens rotating under another tab's refresh, or a device signed in before sign-in ids existed, do not.
import Cookies from 'js-cookie'
import { afterEach, beforeEach, describe, expect, it, type Mock, vi } from 'vitest'
import { endSession, watchForSignOutElsewhere } from '../../../src/features/auth/session.ts'
import { recheckSession } from '../../../src/features/auth/session-check.ts'
import { usageKeys } from '../../../src/figures/year-query.ts'
import { onSessionEnded, request, SessionEndedError } from '../../../src/lib/api.ts'
import { keepTotals } from '../../../src/lib/kept-totals.ts'
import { page } from '../../../src/lib/page.ts'
import { queryClient, restored } from '../../../src/lib/query-client.ts'
import { useStoreStore, useUserStore, wipeDevice } from '../../../src/lib/session-state.ts'
import { adoptSignIn, isSessionCurrent, sessionGeneration } from '../../../src/lib/tokens.ts'
import { bucketUsage } from '../../../src/workers/bucket-exact.ts'
import { fakeServer, json } from '../fake-server.ts'
import { browserWithSubscription } from './push-stub.ts'

const userA = { id: 1, name: '김사장', phone: '01012345678', image: null }
const stores = [{ id: 1, name: '역삼점', images: [] }]
let signedOut: Mock<() => void>
/** The wipe the tab's last sign-out started. */
let wiped: Promise<void> = Promise.resolve()
let stopWatching = () => {}

/** A promise and the function that settles it: an answer the test hands out when it wants. */
function held<T>() {
  let release = (_value: T) => {}
  const promise = new Promise<T>((resolve) => {
    release = resolve
  })
  return { promise, release }
}

/** Longer than the 300 ms the watch takes to notice a change of the cookies. */
const pastTheWatch = () => new Promise((resolve) => setTimeout(resolve, 700))

/** What a tab starting signed in as user A does. */
function startTab(withId: boolean) {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  if (withId) Cookies.set('signInId', 'sign-in-of-a', { path: '/' })
  useUserStore.setState({ user: userA, isLoggedIn: true })
  useStoreStore.setState({ stores, store: stores[0] ?? null })
  adoptSignIn()
  signedOut = vi.fn(() => {
    wiped = wipeDevice()
  })
  onSessionEnded(signedOut)
  stopWatching = watchForSignOutElsewhere(signedOut)
}

beforeEach(() => {
  vi.spyOn(page, 'reload').mockImplementation(() => {})
  vi.spyOn(console, 'error').mockImplementation(() => {})
})
afterEach(() => stopWatching())

describe('another sign-in made in another tab', () => {
  it('signs this tab out, drops the old session’s answer in flight and never sends the new tokens', async () => {
    startTab(true)
    const profile = held<Response>()
    const server = fakeServer({ 'GET /api/v0/user': () => profile.promise })
    const refreshed = recheckSession(endSession)
    await vi.waitFor(() => expect(server.count('GET /api/v0/user')).toBe(1))
    // Tab 1 logs A out and C signs in there, while this tab is in the background.
    for (const name of ['accessToken', 'refreshToken', 'signInId']) Cookies.remove(name, { path: '/' })
    Cookies.set('accessToken', 'c1', { path: '/' })
    Cookies.set('refreshToken', 'rc1', { path: '/' })
    Cookies.set('signInId', 'sign-in-of-c', { path: '/' })
    // A's answer arrives before this tab looks at the cookies again: it is not taken in.
    profile.release(json(200, { user: { ...userA, name: '김대표' }, stores }))
    await refreshed
    expect(useUserStore.getState().user?.name).not.toBe('김대표')
    expect(localStorage.getItem('user-sotre') ?? '').not.toContain('김대표')
    // Nor does this tab send C's tokens for A's screens.
    await expect(request('/api/v0/user')).rejects.toBeInstanceOf(SessionEndedError)
    expect(server.calls.map((call) => call.authorization)).not.toContain('Bearer c1')
    // The tab signs out, and leaves C's cookies to C.
    await vi.waitFor(() => expect(useUserStore.getState().isLoggedIn).toBe(false))
    expect(useUserStore.getState().user).toBeNull()
    expect(signedOut).toHaveBeenCalled()
    expect(Cookies.get('refreshToken')).toBe('rc1')
    expect(Cookies.get('signInId')).toBe('sign-in-of-c')
  })
})

describe('a tab that notices late that another user signed in', () => {
  it('leaves the new sign-in’s state on the device as it found it, and writes nothing of its own there', async () => {
    startTab(true)
    fakeServer({})
    await restored
    const unsubscribe = browserWithSubscription()
    // Tab 1 logs A out (which wipes the device) and C signs in there, while this tab is in the background.
    for (const name of ['accessToken', 'refreshToken', 'signInId']) Cookies.remove(name, { path: '/' })
    localStorage.clear()
    Cookies.set('accessToken', 'c1', { path: '/' })
    Cookies.set('refreshToken', 'rc1', { path: '/' })
    Cookies.set('signInId', 'sign-in-of-c', { path: '/' })
    const ofC: Record<string, string> = {
      'user-sotre': JSON.stringify({
        state: { user: { ...userA, id: 3, name: '이점장' }, isLoggedIn: true },
        version: 0,
      }),
      'store-store': JSON.stringify({
        state: { stores: [{ id: 9, name: '대치점', images: [] }], store: null },
        version: 1,
      }),
      'laundry-kept-totals': JSON.stringify({ storeId: 9, storeName: '대치점', signInId: 'sign-in-of-c' }),
      'laundry-sales-cache': JSON.stringify({ kept: 'the figures of C' }),
    }
    for (const [key, value] of Object.entries(ofC)) localStorage.setItem(key, value)
    // What this tab's screens still do before it notices: keep A's figures, totals and selection.
    const buckets = bucketUsage(new TextEncoder().encode('{"usages":[]}'), 2026)
    queryClient.setQueryData(usageKeys.year(1, 2026), { buckets, etag: 'W/"a"' })
    keepTotals({
      storeId: 1,
      year: 2026,
      month: 11,
      storeName: '역삼점',
      yearLabel: '2026년 매출',
      yearTotal: '1원',
      monthLabel: '11월 매출',
      monthTotal: '1원',
      asOf: '11월 24일 23:05 기준',
    })
    useStoreStore.getState().setStore({ id: 1, name: '역삼점', images: [] })
    // It notices at its next request, and signs out.
    await expect(request('/api/v0/user')).rejects.toBeInstanceOf(SessionEndedError)
    expect(signedOut).toHaveBeenCalled()
    await wiped
    expect(useUserStore.getState()).toMatchObject({ user: null, isLoggedIn: false })
    // Past the persister's throttled save (about a second).
    await new Promise((resolve) => setTimeout(resolve, 1500))
    for (const [key, value] of Object.entries(ofC)) expect(localStorage.getItem(key), key).toBe(value)
    expect(Cookies.get('refreshToken')).toBe('rc1')
    expect(Cookies.get('signInId')).toBe('sign-in-of-c')
    // The browser's push subscription is C's now (the app sends it again at C's start): it stays.
    expect(unsubscribe).not.toHaveBeenCalled()
    queryClient.clear()
  })
})

describe('what does not sign a tab out', () => {
  it('a refresh of the tokens by another tab, or by this one', async () => {
    startTab(true)
    // Another tab exchanged the refresh token: new tokens, the same sign-in.
    Cookies.set('accessToken', 'a2', { path: '/' })
    Cookies.set('refreshToken', 'r2', { path: '/' })
    await pastTheWatch()
    expect(signedOut).not.toHaveBeenCalled()
    expect(isSessionCurrent(sessionGeneration())).toBe(true)
    // This tab's own exchange keeps the sign-in id too.
    const server = fakeServer({
      'GET /api/v0/user': (call) =>
        call.authorization === 'Bearer a3'
          ? json(200, { user: { ...userA, name: '김대표' }, stores })
          : json(401, { message: '로그인이 만료되었습니다.' }),
      'GET /api/v0/user/sign': () => json(200, { token: { access: 'a3', refresh: 'r3' } }),
    })
    await recheckSession(endSession)
    expect(server.count('GET /api/v0/user/sign')).toBe(1)
    expect(Cookies.get('refreshToken')).toBe('r3')
    expect(Cookies.get('signInId')).toBe('sign-in-of-a')
    expect(useUserStore.getState()).toMatchObject({ isLoggedIn: true, user: { name: '김대표' } })
    await pastTheWatch()
    expect(signedOut).not.toHaveBeenCalled()
  })

  it('a device signed in before sign-in ids: the id is written once at start, and the owner stays', async () => {
    startTab(false)
    const id = Cookies.get('signInId')
    expect(id).toMatch(/^[0-9a-f]{32}$/)
    adoptSignIn() // a second tab starting keeps the id the first one wrote
    expect(Cookies.get('signInId')).toBe(id)
    fakeServer({ 'GET /api/v0/user': () => json(200, { user: { ...userA, name: '김대표' }, stores }) })
    await recheckSession(endSession)
    await pastTheWatch()
    expect(signedOut).not.toHaveBeenCalled()
    expect(useUserStore.getState()).toMatchObject({ isLoggedIn: true, user: { name: '김대표' } })
  })
})
