import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Period } from '../../src/features/sales/period.ts'
import { SalesPage } from '../../src/features/sales/sales-page.tsx'
import { useStoreStore } from '../../src/lib/session.ts'
import { type Call, fakeServer, json } from './fake-server.ts'

const store = { id: 1, name: '역삼점', images: [] }
const usages = {
  2026: [
    { createdAt: '2026-03-01T09:15:00.000Z', amount: 4000 },
    { createdAt: '2026-03-31T23:59:59.999Z', amount: 5000 },
    { createdAt: '2026-04-01T00:00:00.000Z', amount: 3000 },
  ],
} as Record<number, unknown[]>

beforeEach(() => {
  useStoreStore.setState({ store, stores: [store] })
  vi.spyOn(console, 'error').mockImplementation(() => {})
})

function renderAt(period: Period) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const view = (at: Period) => (
    <QueryClientProvider client={client}>
      <SalesPage period={at} onPeriodChange={() => {}} />
    </QueryClientProvider>
  )
  const rendered = render(view(period))
  return { rerender: (at: Period) => rendered.rerender(view(at)) }
}

const usageServer = () =>
  fakeServer({
    'GET /api/v0/store/1/usage': (call: Call) => {
      const year = Number(call.search.get('year'))
      return year === 2020
        ? json(500, { message: '서버에 문제가 생겼습니다.' })
        : json(200, { usages: usages[year] ?? [] })
    },
  })

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

  it('changing the month uses the buckets already there; changing the year fetches', async () => {
    const server = usageServer()
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    view.rerender({ year: 2026, month: 4 })
    expect(screen.getByTestId('month-total')).toHaveTextContent('3,000원')
    expect(server.count('GET /api/v0/store/1/usage')).toBe(1)
    view.rerender({ year: 2025, month: 4 })
    await vi.waitFor(() => expect(screen.getByTestId('year-total')).toHaveTextContent('0원'))
    expect(server.count('GET /api/v0/store/1/usage')).toBe(2)
  })

  it('a failed usage fetch is logged to the console only, and the figures stay as they were', async () => {
    usageServer()
    const view = renderAt({ year: 2026, month: 3 })
    await screen.findByText('12,000원')
    view.rerender({ year: 2020, month: 3 })
    await vi.waitFor(() => expect(console.error).toHaveBeenCalled())
    expect(screen.getByTestId('year-total')).toHaveTextContent('12,000원')
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })
})
