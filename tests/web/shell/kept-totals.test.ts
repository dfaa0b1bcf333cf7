import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { keepTotals } from '../../../src/lib/kept-totals.ts'
import { wipeDevice } from '../../../src/lib/session-state.ts'
import { adoptSignIn } from '../../../src/lib/tokens.ts'
import type { KeptTotals } from '../../../src/shell/kept-totals.ts'
import { keptTotalsKey } from '../../../src/shell/names.ts'

const today = new Date()
const kept: KeptTotals = {
  storeId: 2,
  year: today.getFullYear(),
  month: today.getMonth() + 1,
  storeName: '선릉점 <b>',
  yearLabel: `${today.getFullYear()}년 매출`,
  yearTotal: '319,099,000원',
  monthLabel: `${today.getMonth() + 1}월 매출`,
  monthTotal: '22,071,000원',
  asOf: '11월 24일 23:05 기준',
}

/** Loads the painter as index.html does, on a fresh page at `address`. */
async function openPage(address: string) {
  document.body.innerHTML = '<header class="shell-header"></header><div id="root"></div>'
  window.history.replaceState(null, '', address)
  vi.resetModules()
  await import('../../../src/shell/paint-first.ts')
  return document.querySelector<HTMLElement>('.kept-totals')
}

/** Signed in as the app's guards see it: the user state in local storage. */
const setLoggedIn = (isLoggedIn: boolean) =>
  localStorage.setItem('user-sotre', JSON.stringify({ state: { user: null, isLoggedIn }, version: 0 }))

beforeEach(() => {
  localStorage.clear()
  Cookies.set('refreshToken', 'r1', { path: '/' })
  Cookies.set('signInId', 'sign-in-1', { path: '/' })
  adoptSignIn()
  setLoggedIn(true)
  setStores([1, 2])
  keepTotals(kept)
})

/** The stores the device remembers (`store-store`), store 2 selected. */
const setStores = (ids: number[]) =>
  localStorage.setItem(
    'store-store',
    JSON.stringify({ state: { stores: ids.map((id) => ({ id })), store: { id: 2 } }, version: 1 }),
  )

describe('the totals last shown, painted before the app runs', () => {
  it('paint on the sales screen of the remembered store and this month, marked as being refreshed', async () => {
    const painted = await openPage('/')
    expect(painted?.textContent).toBe(
      `선릉점 <b>${kept.yearLabel}319,099,000원${kept.monthLabel}22,071,000원새로 고치는 중 · 11월 24일 23:05 기준`,
    )
    expect(painted?.getAttribute('aria-busy')).toBe('true')
    // Text, never markup: a store's name is the server's.
    expect(painted?.querySelector('b')).toBeNull()
    // Before the app's root, which waits behind them.
    expect(painted?.nextElementSibling?.id).toBe('root')
  })

  it("paint for the address's store and period when they are the kept ones", async () => {
    expect(await openPage(`/?store=2&year=${kept.year}&month=${kept.month}`)).not.toBeNull()
  })

  it('paint nothing for another store, another period, another screen, or no one signed in', async () => {
    expect(await openPage('/?store=1')).toBeNull()
    expect(await openPage(`/?year=${kept.year - 1}&month=${kept.month}`)).toBeNull()
    expect(await openPage('/stores')).toBeNull()
    expect(await openPage('/login')).toBeNull()
    Cookies.remove('refreshToken', { path: '/' })
    expect(await openPage('/')).toBeNull()
    Cookies.set('refreshToken', 'r1', { path: '/' })
    setLoggedIn(false)
    expect(await openPage('/')).toBeNull()
  })

  it('paint nothing of a sign-in the device knows has ended, nor of a store no longer listed', async () => {
    // Another sign-in holds the cookies now (another user signed in in another tab).
    Cookies.set('signInId', 'sign-in-2', { path: '/' })
    expect(await openPage('/')).toBeNull()
    Cookies.set('signInId', 'sign-in-1', { path: '/' })
    expect(await openPage('/')).not.toBeNull()
    // The profile no longer lists store 2 (the owner's access to it was revoked).
    setStores([1, 3])
    expect(await openPage('/')).toBeNull()
    expect(await openPage(`/?store=2&year=${kept.year}&month=${kept.month}`)).toBeNull()
  })

  it('wait, when the painter runs before the page has been read as far as #root, until the page has been read', async () => {
    // index.html has the painter right after #root; anywhere before it, it paints once the page is read.
    document.body.innerHTML = '<header class="shell-header"></header>'
    window.history.replaceState(null, '', '/')
    vi.resetModules()
    await import('../../../src/shell/paint-first.ts')
    expect(document.querySelector('.kept-totals')).toBeNull()
    document.body.insertAdjacentHTML('beforeend', '<div id="root"></div>')
    expect(document.querySelector('.kept-totals')).toBeNull()
    document.dispatchEvent(new Event('DOMContentLoaded'))
    expect(document.querySelector('.kept-totals')?.nextElementSibling?.id).toBe('root')
    expect(document.querySelectorAll('.kept-totals')).toHaveLength(1)
  })

  it('paint nothing once the app has drawn its screen (the painter arrived after the app had started)', async () => {
    document.body.innerHTML = '<header class="shell-header"></header><div id="root"><main>app</main></div>'
    window.history.replaceState(null, '', '/')
    vi.resetModules()
    await import('../../../src/shell/paint-first.ts')
    expect(document.querySelector('.kept-totals')).toBeNull()
  })

  it("start the app (index.html's script, moved into the painter's hands) after the frame that shows them, at once when there are none", async () => {
    const painter = document.createElement('script')
    painter.dataset.app = '/assets/index-a.js'
    painter.dataset.preload = '/assets/app-b.js /assets/login-c.js'
    Object.defineProperty(document, 'currentScript', { value: painter, configurable: true })
    const appScripts = () => document.head.querySelectorAll('script[type="module"][src="/assets/index-a.js"]')
    try {
      expect(await openPage('/')).not.toBeNull()
      expect(appScripts()).toHaveLength(0)
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 10)))
      expect(appScripts()).toHaveLength(1)
      expect(
        [...document.head.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')].map((link) =>
          link.getAttribute('href'),
        ),
      ).toEqual(['/assets/app-b.js', '/assets/login-c.js'])
      document.head.innerHTML = ''
      expect(await openPage('/stores')).toBeNull()
      expect(appScripts()).toHaveLength(1)
    } finally {
      Reflect.deleteProperty(document, 'currentScript')
      document.head.innerHTML = ''
    }
  })

  it('are kept only while someone is signed in, and a wipe of the device forgets them', async () => {
    expect(localStorage.getItem(keptTotalsKey)).not.toBeNull()
    await openPage('/')
    await wipeDevice()
    expect(localStorage.getItem(keptTotalsKey)).toBeNull()
    expect(document.querySelector('.kept-totals')).toBeNull()
    keepTotals(kept)
    expect(localStorage.getItem(keptTotalsKey)).toBeNull()
  })
})
