import { onlineManager, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, fireEvent, render, screen } from '@testing-library/react'
import Cookies from 'js-cookie'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { emptyBuckets } from '../../domain/buckets.ts'
import type { Period } from '../../src/features/sales/period.ts'
import { SalesPage } from '../../src/features/sales/sales-page.tsx'
import { type Usage, usageKeys } from '../../src/figures/year-query.ts'
import { useStoreStore } from '../../src/lib/session-state.ts'
import { type Call, fakeServer, json } from './fake-server.ts'

const store = { id: 1, name: '역삼점', images: [] }
const other = { id: 2, name: '선릉점', images: [] }
const usages = {
  2026: [
    { createdAt: '2026-03-01T09:15:00.000Z', amount: 4000 },
    { createdAt: '2026-03-31T23:59:59.999Z', amount: 5000 },
    { createdAt: '2026-04-01T00:00:00.000Z', amount: 3000 },
  ],
} as Record<number, unknown[]>

beforeEach(() => {
  // A signed-in device.
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  useStoreStore.setState({ store, stores: [store, other] })
  vi.spyOn(console, 'error').mockImplementation(() => {})
})
afterEach(() => onlineManager.setOnline(true))

/** The sales page of store 1 (the route's selection) at `period`; `rerender` selects another period or store. */
function renderAt(
  period: Period,
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } }),
) {
  const view = (at: Period, storeId: number) => (
    <QueryClientProvider client={client}>
      <SalesPage storeId={storeId} period={at} onPeriodChange={() => {}} />
    </QueryClientProvider>
  )
  const rendered = render(view(period, store.id))
  return {
    client,
    rerender: (at: Period, storeId = store.id) => rendered.rerender(view(at, storeId)),
  }
}

const usageServer = () =>
  fakeServer({
    'GET /api/v0/store/1/usage': (call: Call) => {
      const year = Number(call.search.get('year'))
      return year === 2020
        ? json(500, { message: '서버에 문제가 생겼습니다.' })
        : json(200, { usages: usages[year] ?? [] })
    },
    'GET /api/v0/store/2/usage': () => json(500, { message: '서버에 문제가 생겼습니다.' }),
  })

/** No figure of the first store's 2026 (12,000원 for the year, 9,000원 for March) anywhere on screen. */
function expectNoFiguresOfStore1() {
  expect(screen.queryByText('12,000원')).not.toBeInTheDocument()
  expect(screen.queryByText('9,000원')).not.toBeInTheDocument()
  expect(document.body.textContent).not.toMatch(/12,000원|9,000원/)
}

describe('the sales screen', () => {
  it('shows the year and month totals in won, and a text table of every day of the month', async () => {
    usageServer()
    renderAt({ year: 2026, month: 3 })
    expect(await screen.findByText('12,000원')).toBeInTheDocument()
    expect(screen.getByTestId('month-total')).toHaveTextContent('9,000원')
    expect(screen.getByRole('heading', { name: '2026년 매출' })).toBeInTheDocument()
    expect(screen.getByRole('heading', { name: '3월 매출' })).toBeInTheDocument()
    const days = screen.getByRole('table', { name: /이번 달 매출/ })
    expect(days).toHaveAccessibleName('이번 달 매출: 2026년 3월 합계 9,000원')
    expect(screen.getAllByRole('row').filter((row) => days.contains(row))).toHaveLength(32)
    expect(screen.getByRole('rowheader', { name: '31일' }).nextElementSibling).toHaveTextContent('5,000원')
  })

  it('changing the month uses the buckets already there; last year is fetched after this year is shown', async () => {
    const server = usageServer()
    const years = () => server.calls.map((call) => call.search.get('year'))
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    // Last year's figures, for the comparisons, only once this year's are shown.
    await vi.waitFor(() => expect(years()).toEqual(['2026', '2025']))
    view.rerender({ year: 2026, month: 4 })
    expect(screen.getByTestId('month-total')).toHaveTextContent('3,000원')
    expect(years()).toEqual(['2026', '2025'])
    // 2025 is already there (this test's cache revalidates it); showing it asks for 2024, its own last year.
    view.rerender({ year: 2025, month: 4 })
    expect(screen.getByTestId('year-total')).toHaveTextContent('0원')
    await vi.waitFor(() => expect(years().at(-1)).toBe('2024'))
  })

  it('a failed refetch of the same store and year is logged, and the figures stay, with their time', async () => {
    let failing = false
    fakeServer({
      'GET /api/v0/store/1/usage': () =>
        failing ? json(500, { message: '서버에 문제가 생겼습니다.' }) : json(200, { usages: usages[2026] }),
    })
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    failing = true
    await act(() => view.client.refetchQueries().catch(() => {}))
    await vi.waitFor(() => expect(console.error).toHaveBeenCalled())
    expect(screen.getByTestId('year-total')).toHaveTextContent('12,000원')
    expect(screen.getByText(/^새 매출을 불러오지 못했습니다 · .* 기준$/)).toBeInTheDocument()
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })

  it("another year that cannot be fetched shows an honest empty state with a retry, never the last year's figures", async () => {
    const server = usageServer()
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    view.rerender({ year: 2020, month: 3 })
    expect(
      await screen.findByRole('heading', { name: '이 매장의 2020년 매출을 불러오지 못했습니다' }),
    ).toBeInTheDocument()
    expect(screen.queryByTestId('year-total')).not.toBeInTheDocument()
    expectNoFiguresOfStore1()
    const asked2020 = () => server.calls.filter((call) => call.search.get('year') === '2020').length
    expect(asked2020()).toBe(1)
    fireEvent.click(screen.getByRole('button', { name: '다시 시도' }))
    await vi.waitFor(() => expect(asked2020()).toBe(2))
  })

  it("while another store's figures load, a loading state: never the previous store's figures under its name", async () => {
    let answer = (_response: Response) => {}
    const answered = new Promise<Response>((resolve) => {
      answer = resolve
    })
    fakeServer({
      'GET /api/v0/store/1/usage': () => json(200, { usages: usages[2026] }),
      'GET /api/v0/store/2/usage': () => answered,
    })
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    view.rerender({ year: 2026, month: 3 }, other.id)
    expect(screen.getByText('매출을 불러오는 중…')).toBeInTheDocument()
    expect(screen.queryByTestId('year-total')).not.toBeInTheDocument()
    expectNoFiguresOfStore1()
    answer(json(200, { usages: [{ createdAt: '2026-03-02T00:00:00.000Z', amount: 7000 }] }))
    await vi.waitFor(() => expect(screen.getByTestId('year-total')).toHaveTextContent('7,000원'))
  })

  it("another store whose fetch fails: an empty state with a retry, never the previous store's figures", async () => {
    usageServer()
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    view.rerender({ year: 2026, month: 3 }, other.id)
    expect(
      await screen.findByRole('heading', { name: '이 매장의 2026년 매출을 불러오지 못했습니다' }),
    ).toBeInTheDocument()
    expectNoFiguresOfStore1()
    expect(screen.getByRole('button', { name: '다시 시도' })).toBeInTheDocument()
  })

  it("another store whose fetch fails shows that store's kept figures, with their time", async () => {
    usageServer()
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    const kept = emptyBuckets(2026)
    kept.total = 55_000
    kept.months[2] = 55_000
    const keptAt = new Date(2026, 2, 5, 14, 30).getTime()
    view.client.setQueryData<Usage>(
      usageKeys.year(2, 2026),
      { buckets: kept, etag: null },
      { updatedAt: keptAt },
    )
    view.rerender({ year: 2026, month: 3 }, other.id)
    expect(screen.getByTestId('year-total')).toHaveTextContent('55,000원')
    await vi.waitFor(() => expect(screen.getByText(/^새 매출을 불러오지 못했습니다 · 3월 5일 14:30 기준$/)))
    expect(screen.getByTestId('year-total')).toHaveTextContent('55,000원')
    expectNoFiguresOfStore1()
  })

  it("offline, another store with nothing kept is not available: never the previous store's figures", async () => {
    usageServer()
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    act(() => onlineManager.setOnline(false))
    view.rerender({ year: 2026, month: 3 }, other.id)
    expect(screen.getByRole('heading', { name: '오프라인에서는 볼 수 없는 기간입니다' })).toBeInTheDocument()
    expectNoFiguresOfStore1()
  })
})

describe('a store gone quiet', () => {
  /** Six sales in each UTC hour 0–13 of every day from 1 September, up to `until`. */
  function laundromatRecords(until: string) {
    const end = Date.parse(until)
    const usages: { createdAt: string; amount: number }[] = []
    for (let at = Date.UTC(2026, 8, 1); at < end; at += 60 * 60 * 1000) {
      if (new Date(at).getUTCHours() > 13) continue
      for (const minute of [0, 10, 20, 30, 40, 50]) {
        const instant = at + minute * 60 * 1000
        if (instant < end) usages.push({ createdAt: new Date(instant).toISOString(), amount: 4000 })
      }
    }
    return usages
  }

  function quietServer(lastSale: string) {
    return fakeServer({
      'GET /api/v0/store/1/usage': (call: Call) =>
        json(200, { usages: call.search.get('year') === '2026' ? laundromatRecords(lastSale) : [] }),
    })
  }

  it('is said above its figures: hours without a sale where sales are usual', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-11-20T08:00:00.000Z'))
    quietServer('2026-11-20T05:00:00.000Z')
    renderAt({ year: 2026, month: 11 })
    // The last sale at 04:50: 3 h 10 min without one, where about 19 are usual (6 an hour).
    expect(await screen.findByText('3시간째 결제 없음 · 평소 이 시간 약 19건')).toBeInTheDocument()
  })

  it('is not said when the store sells as usual', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-11-20T08:00:00.000Z'))
    quietServer('2026-11-20T08:00:00.000Z')
    renderAt({ year: 2026, month: 11 })
    await screen.findByTestId('year-total')
    expect(screen.queryByText(/결제 없음/)).not.toBeInTheDocument()
  })

  it('is not said from figures whose refresh failed: they may be out of date', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-11-20T08:00:00.000Z'))
    quietServer('2026-11-20T05:00:00.000Z')
    const { client } = renderAt({ year: 2026, month: 11 })
    expect(await screen.findByText(/3시간째 결제 없음/)).toBeInTheDocument()
    fakeServer({ 'GET /api/v0/store/1/usage': () => json(500, { message: '서버에 문제가 생겼습니다.' }) })
    await act(() => client.refetchQueries())
    expect(await screen.findByText(/새 매출을 불러오지 못했습니다/)).toBeInTheDocument()
    expect(screen.queryByText(/결제 없음/)).not.toBeInTheDocument()
  })
})

describe('the sales screen left open', () => {
  it('moves on by itself: past UTC midnight, today is the new day, and the chart goes on to it', async () => {
    vi.useFakeTimers({
      now: Date.parse('2026-04-01T23:59:30.000Z'),
      toFake: ['Date', 'setInterval', 'clearInterval'],
    })
    try {
      fakeServer({
        'GET /api/v0/store/1/usage': () =>
          json(200, { usages: [{ createdAt: '2026-04-01T12:00:00.000Z', amount: 4000 }] }),
      })
      renderAt({ year: 2026, month: 4 })
      const today = await screen.findByTestId('today')
      expect(today).toHaveTextContent('오늘 4,000원 · 1건')
      const day2 = () => screen.getByRole('rowheader', { name: '2일' }).nextElementSibling
      expect(day2()).toHaveTextContent('—')
      act(() => vi.advanceTimersByTime(60_000))
      expect(screen.getByTestId('today')).toHaveTextContent('오늘 0원 · 0건')
      expect(day2()).toHaveTextContent('0원')
    } finally {
      vi.useRealTimers()
    }
  })
})
