// The app's real route tree, with the router context main.tsx gives it: the guards, and the sales
// route owning the selection (store, year and month from the address, the defaults applied once).
import { act, fireEvent, screen } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { currentPeriod } from '../../src/figures/clock.ts'
import { usageKeys } from '../../src/figures/year-query.ts'
import { useStoreStore } from '../../src/lib/session-state.ts'
import { signedIn, startAt } from './app-at.tsx'
import { fakeServer, json } from './fake-server.ts'

const stores = [
  { id: 1, name: '역삼점', images: [] },
  { id: 2, name: '선릉점', images: [] },
]

const server = () =>
  fakeServer({
    'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
    'GET /api/v0/store/2/usage': () =>
      json(200, { usages: [{ createdAt: '2025-06-03T01:00:00.000Z', amount: 4000 }] }),
  })

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
})

describe('routes', () => {
  it('a device not signed in is sent from / to the login screen', async () => {
    server()
    const { router } = startAt('/')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/login'))
  })

  it('a signed-in device is sent from /login to the sales screen', async () => {
    signedIn(stores)
    server()
    const { router } = startAt('/login')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/'))
  })

  it('the address names the store and period: they are shown, fetched, and the store is remembered', async () => {
    signedIn(stores)
    const calls = server()
    const { queryClient } = startAt('/?store=2&year=2025&month=6')
    expect(
      await screen.findByRole('heading', { level: 1, name: '선릉점 2025년 6월 매출' }),
    ).toBeInTheDocument()
    await vi.waitFor(() => expect(screen.getByTestId('year-total')).toHaveTextContent('4,000원'))
    // That store's year first, then its last year for the comparisons; no other store's.
    await vi.waitFor(() =>
      expect(calls.calls.map((call) => `${call.path}?${call.search}`)).toEqual([
        '/api/v0/store/2/usage?year=2025',
        '/api/v0/store/2/usage?year=2024',
      ]),
    )
    expect(queryClient.getQueryData(usageKeys.year(2, 2025))).toBeDefined()
    expect(useStoreStore.getState().store?.id).toBe(2)
  })

  it('without a store or period in the address: the remembered store, this month, and the address stays /', async () => {
    signedIn(stores)
    const calls = server()
    const { router } = startAt('/')
    const { year, month } = currentPeriod()
    expect(
      await screen.findByRole('heading', { level: 1, name: `역삼점 ${year}년 ${month}월 매출` }),
    ).toBeInTheDocument()
    expect(calls.calls[0] && `${calls.calls[0].path}?${calls.calls[0].search}`).toBe(
      `/api/v0/store/1/usage?year=${year}`,
    )
    expect(router.state.location.href).toBe('/')
  })

  it('left open at /, the screen moves on to the new month (and year) when it begins', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] })
    try {
      // 08:58 in Korea on 1 January 2027: UTC is still in the last two minutes of 2026.
      vi.setSystemTime(new Date('2026-12-31T23:58:00.000Z'))
      signedIn(stores)
      server()
      startAt('/')
      expect(
        await screen.findByRole('heading', { level: 1, name: '역삼점 2026년 12월 매출' }),
      ).toBeInTheDocument()
      await act(async () => {
        vi.advanceTimersByTime(3 * 60_000)
      })
      expect(
        await screen.findByRole('heading', { level: 1, name: '역삼점 2027년 1월 매출' }),
      ).toBeInTheDocument()
      // Another store opens on the month shown, not on the one the screen was opened in.
      fireEvent.click(screen.getByRole('button', { name: '매장: 역삼점 (매장 바꾸기)' }))
      await act(async () => fireEvent.click(screen.getByRole('button', { name: '선릉점' })))
      expect(
        await screen.findByRole('heading', { level: 1, name: '선릉점 2027년 1월 매출' }),
      ).toBeInTheDocument()
    } finally {
      vi.useRealTimers()
    }
  })

  it('a month named in the address stays when the month changes', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] })
    try {
      vi.setSystemTime(new Date('2026-12-31T23:58:00.000Z'))
      signedIn(stores)
      server()
      startAt('/?year=2026&month=11')
      expect(
        await screen.findByRole('heading', { level: 1, name: '역삼점 2026년 11월 매출' }),
      ).toBeInTheDocument()
      await act(async () => {
        vi.advanceTimersByTime(3 * 60_000)
      })
      expect(screen.getByRole('heading', { level: 1, name: '역삼점 2026년 11월 매출' })).toBeInTheDocument()
    } finally {
      vi.useRealTimers()
    }
  })

  it("a store that is not the user's is not taken from the address", async () => {
    signedIn(stores)
    const calls = server()
    startAt('/?store=99&year=2025&month=6')
    expect(
      await screen.findByRole('heading', { level: 1, name: '역삼점 2025년 6월 매출' }),
    ).toBeInTheDocument()
    expect(calls.calls.every((call) => call.path === '/api/v0/store/1/usage')).toBe(true)
    expect(useStoreStore.getState().store?.id).toBe(1)
  })

  it('the store switcher opens the same period of the chosen store', async () => {
    signedIn(stores)
    const calls = server()
    const { router } = startAt('/?year=2025&month=6')
    await screen.findByRole('heading', { level: 1, name: '역삼점 2025년 6월 매출' })
    fireEvent.click(screen.getByRole('button', { name: '매장: 역삼점 (매장 바꾸기)' }))
    await act(async () => fireEvent.click(screen.getByRole('button', { name: '선릉점' })))
    expect(
      await screen.findByRole('heading', { level: 1, name: '선릉점 2025년 6월 매출' }),
    ).toBeInTheDocument()
    expect(router.state.location.search).toEqual({ store: 2, year: 2025, month: 6 })
    expect(useStoreStore.getState().store?.id).toBe(2)
    // The last figures asked for are the chosen store's (its machines section asks for its own too).
    expect(calls.calls.filter((call) => call.path.endsWith('/usage')).at(-1)?.path).toBe(
      '/api/v0/store/2/usage',
    )
  })
})
