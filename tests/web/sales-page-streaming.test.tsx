// The sales screen while a version 2 usage answer streams (docs/product.md decision 116): the answer comes in
// small pieces with pauses; the totals and charts are on screen after the sums' bytes and before the
// last byte, the rest loading; a connection cut after the sums leaves them shown, the rest failed with a
// retry, and nothing kept as complete figures.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, render, screen } from '@testing-library/react'
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { encodeUsage, encodeUsageV2, leadingSums, readLeadingSums } from '../../contract/usage-compact.ts'
import { compactUsageTypeV2 } from '../../contract/usage-compact-type.ts'
import { SalesPage } from '../../src/features/sales/sales-page.tsx'
import { usageKeys } from '../../src/figures/year-query.ts'
import { useStoreStore } from '../../src/lib/session-state.ts'
import { fakeServer, json } from './fake-server.ts'

const store = { id: 1, name: '역삼점', images: [] }
const rows = [
  { at: Date.UTC(2026, 2, 1, 9, 15), amount: 4000 },
  { at: Date.UTC(2026, 2, 31, 23, 59, 59, 999), amount: 5000 },
  { at: Date.UTC(2026, 3, 1), amount: 3000 },
]
const at = rows.map((r) => r.at)
const amounts = rows.map((r) => r.amount)
const bytes = encodeUsageV2(leadingSums(2026, at, amounts), encodeUsage(at, amounts))
const { recordsAt } = readLeadingSums(bytes, 2026) ?? { recordsAt: 0 }
// The records' bytes are at least 9 more: the cut below comes within them.
if (bytes.length - recordsAt < 9) throw new Error('records too short for the test')

beforeEach(() => {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  useStoreStore.setState({ store, stores: [store] })
  vi.spyOn(console, 'error').mockImplementation(() => {})
})

/** The answer's body, sent in pieces of 32 bytes with a pause after each, up to `until` bytes. */
function dripping() {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
  })
  return {
    body,
    async send(upTo: number) {
      const until = Math.min(upTo, bytes.length)
      while (sent < until) {
        const piece = bytes.slice(sent, Math.min(sent + 32, until))
        controller.enqueue(piece)
        sent += piece.length
        await act(() => new Promise((resolve) => setTimeout(resolve, 5)))
      }
      if (sent === bytes.length) controller.close()
    },
    cut: () => controller.error(new TypeError('network error')),
  }
}

function renderScreen(stream: ReturnType<typeof dripping>) {
  fakeServer({
    'GET /api/v0/store/1/usage': (call) =>
      call.search.get('year') === '2026'
        ? new Response(stream.body, { headers: { 'content-type': compactUsageTypeV2, etag: 'W/"v2"' } })
        : json(200, { usages: [] }),
  })
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  render(
    <QueryClientProvider client={client}>
      <SalesPage storeId={1} period={{ year: 2026, month: 3 }} onPeriodChange={() => {}} />
    </QueryClientProvider>,
  )
  return client
}

const pause = () => act(() => new Promise((resolve) => setTimeout(resolve, 20)))

describe('the sales screen on a streaming version 2 answer', () => {
  it('shows the totals after the sums’ bytes and before the last byte, then the whole screen', async () => {
    const stream = dripping()
    renderScreen(stream)
    await pause()
    await stream.send(recordsAt - 1)
    expect(screen.queryByTestId('year-total')).not.toBeInTheDocument()
    expect(screen.getByText('매출을 불러오는 중…')).toBeInTheDocument()
    await stream.send(recordsAt + 1)
    expect(await screen.findByTestId('year-total', {}, { timeout: 5000 })).toHaveTextContent('12,000원')
    expect(screen.getByTestId('month-total')).toHaveTextContent('9,000원')
    expect(screen.getByRole('table', { name: /이번 달 매출/ })).toBeInTheDocument()
    expect(screen.getByTestId('rest-status')).toHaveTextContent('나머지 매출을 불러오는 중…')
    // Averages and comparisons need the records: not shown from the sums.
    expect(document.body.textContent).not.toMatch(/평균|보다/)
    await stream.send(bytes.length)
    expect(await screen.findAllByText(/CSV 내려받기/, {}, { timeout: 5000 })).toHaveLength(2)
    expect(screen.queryByTestId('rest-status')).not.toBeInTheDocument()
    expect(screen.getByTestId('year-total')).toHaveTextContent('12,000원')
    expect(document.body.textContent).toMatch(/CSV 내려받기/)
  })

  it('a connection cut after the sums: the totals stay, the rest failed with a retry, nothing kept', async () => {
    const stream = dripping()
    const client = renderScreen(stream)
    await pause()
    await stream.send(recordsAt + 8)
    expect(await screen.findByTestId('year-total', {}, { timeout: 5000 })).toHaveTextContent('12,000원')
    stream.cut()
    expect(await screen.findByText('나머지 매출을 불러오지 못했습니다', { exact: false })).toBeInTheDocument()
    expect(screen.getByTestId('year-total')).toHaveTextContent('12,000원')
    expect(screen.getByRole('button', { name: '다시 시도' })).toBeInTheDocument()
    expect(client.getQueryData(usageKeys.year(1, 2026))).toBeUndefined()
    expect(document.body.textContent).not.toMatch(/CSV 내려받기|기준/)
  })
})
