// One clock for the whole app (src/figures/clock.ts): at 00:30 on the 1st of a month in Korea, which is
// 15:30 UTC on the last day of the month before, every screen, the export, the first painter and the
// sign-in's early figures agree that it is still the month before: periods are UTC months
// (docs/product.md decision 4). Pinned on 1 January, so that the year turns too.
import { fireEvent, screen } from '@testing-library/react'
import Cookies from 'js-cookie'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { signIn } from '../../../src/features/auth/sign-in.ts'
import { keepTotals } from '../../../src/lib/kept-totals.ts'
import { page } from '../../../src/lib/page.ts'
import { adoptSignIn } from '../../../src/lib/tokens.ts'
import { signedIn, startAt } from '../app-at.tsx'
import { fakeServer, json } from '../fake-server.ts'

/** 2027-01-01 00:30 in Korea. */
const kstHalfPastMidnight = new Date('2026-12-31T15:30:00.000Z')
const stores = [
  { id: 1, name: '역삼점', images: [] },
  { id: 2, name: '선릉점', images: [] },
]
const usages = [
  { createdAt: '2026-12-30T02:00:00.000Z', amount: 4000 },
  { createdAt: '2026-12-31T14:00:00.000Z', amount: 5000 },
]

const server = () =>
  fakeServer({
    'GET /api/v0/store/1/usage': (call) =>
      json(200, { usages: call.search.get('year') === '2026' ? usages : [] }),
    'GET /api/v0/store/2/usage': () => json(200, { usages: [] }),
  })

beforeEach(() => {
  // The device is in Korea; its clock stands at 00:30 on New Year's Day.
  vi.stubEnv('TZ', 'Asia/Seoul')
  vi.useFakeTimers({ toFake: ['Date'], now: kstHalfPastMidnight })
  vi.spyOn(console, 'error').mockImplementation(() => {})
})
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllEnvs()
})

describe('at 00:30 on the 1st in Korea, it is still last month (UTC) everywhere', () => {
  it('the device is where the test says', () => {
    expect(new Date().getHours()).toBe(0)
    expect(new Date().getFullYear()).toBe(2027)
  })

  it('the sales screen opens December 2026, fetches 2026, and its export is of December up to today', async () => {
    signedIn(stores)
    const calls = server()
    const { router } = startAt('/')
    expect(
      await screen.findByRole('heading', { level: 1, name: '역삼점 2026년 12월 매출' }),
    ).toBeInTheDocument()
    expect(router.state.location.href).toBe('/')
    expect(calls.calls[0]?.search.get('year')).toBe('2026')
    await vi.waitFor(() => expect(screen.getByTestId('year-total')).toHaveTextContent('9,000원'))

    // The export of the month: its name and its rows, up to today (UTC).
    const files: { name: string; blob: Blob }[] = []
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      files.push({ name: '', blob: blob as Blob })
      return 'blob:csv'
    })
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {})
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      const file = files.at(-1)
      if (file) file.name = this.download
    })
    fireEvent.click(screen.getByRole('button', { name: '12월 CSV 내려받기' }))
    await vi.waitFor(() => expect(files).toHaveLength(1))
    expect(files[0]?.name).toBe('역삼점_2026-12.csv')
    const rows = (await files[0]?.blob.text())?.trim().split('\r\n') ?? []
    expect(rows).toHaveLength(32)
    expect(rows.at(-1)).toBe('2026-12-31,5000,1')
  })

  it('the overview counts December, and its row opens December of that store', async () => {
    signedIn(stores)
    server()
    const { router } = startAt('/stores')
    expect(await screen.findByText('12월 합계')).toBeInTheDocument()
    await vi.waitFor(() => expect(screen.getByTestId('total-month')).toHaveTextContent('9,000원'))
    fireEvent.click(screen.getByTestId('store-row-1'))
    expect(
      await screen.findByRole('heading', { level: 1, name: '역삼점 2026년 12월 매출' }),
    ).toBeInTheDocument()
    // This month, so not written into the address.
    expect(router.state.location.search).toEqual({ store: 1 })
  })

  it('the first painter paints the totals of December 2026, as the screen will open', async () => {
    Cookies.set('refreshToken', 'r1', { path: '/' })
    Cookies.set('signInId', 'sign-in-1', { path: '/' })
    adoptSignIn()
    localStorage.setItem(
      'user-sotre',
      JSON.stringify({ state: { user: null, isLoggedIn: true }, version: 0 }),
    )
    localStorage.setItem(
      'store-store',
      JSON.stringify({ state: { stores: [{ id: 1 }], store: { id: 1 } }, version: 1 }),
    )
    keepTotals({
      storeId: 1,
      year: 2026,
      month: 12,
      storeName: '역삼점',
      yearLabel: '2026년 매출',
      yearTotal: '9,000원',
      monthLabel: '12월 매출',
      monthTotal: '9,000원',
      asOf: '1월 1일 00:29 기준',
    })
    for (const address of ['/', '/?year=2025', '/?month=1', '/?store=1&year=2026&month=12']) {
      document.body.innerHTML = '<div id="root"></div>'
      window.history.replaceState(null, '', address)
      vi.resetModules()
      await import('../../../src/shell/paint-first.ts')
      expect(document.querySelector('.kept-totals'), address).not.toBeNull()
    }
  })

  it("the sign-in asks early for this year's figures: 2026", async () => {
    vi.spyOn(page, 'reload').mockImplementation(() => {})
    const calls = fakeServer({
      'POST /api/v0/user/sign': () => json(200, { token: { access: 'a1', refresh: 'r1' }, firstStoreId: 1 }),
      'GET /api/v0/user': () =>
        json(200, { user: { id: 1, name: '김사장', phone: '01012345678', image: null }, stores }),
      'GET /api/v0/store/1/usage': () => json(200, { usages }),
    })
    expect(await signIn('01012345678', '1234')).toBe(true)
    const asked = calls.calls.filter((call) => call.path === '/api/v0/store/1/usage')
    expect(asked.map((call) => call.search.get('year'))).toEqual(['2026'])
  })
})
