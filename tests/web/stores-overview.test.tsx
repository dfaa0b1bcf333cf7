// The stores overview (/stores) in the app's real route tree, with the API faked at the network edge:
// one store whose figures cannot be fetched shows its own error in its row; the others keep theirs.
import { screen, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { dayAndTime } from '../../domain/format.ts'
import { signedIn, startAt } from './app-at.tsx'
import { fakeServer, json } from './fake-server.ts'

const stores = [
  { id: 1, name: '역삼점', images: [] },
  { id: 2, name: '선릉점', images: [] },
  { id: 3, name: '대치점', images: [] },
]

/** A sale at the start of today (UTC): within "today up to now" at any time of day. */
const todaysSale = (amount: number) => {
  const now = new Date()
  const startOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  return json(200, { usages: [{ createdAt: new Date(startOfToday).toISOString(), amount }] })
}

const row = (storeId: number) => screen.getByTestId(`store-row-${storeId}`)
const failedText = '이 매장의 매출을 불러오지 못했습니다'

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
  signedIn(stores)
})

describe('the stores overview, one store failing', () => {
  it('a server error for one store: that row says so, the other rows show their figures', async () => {
    const server = fakeServer({
      'GET /api/v0/store/1/usage': () => todaysSale(12_000),
      'GET /api/v0/store/2/usage': () => json(500, { message: '서버 오류' }),
      'GET /api/v0/store/3/usage': () => todaysSale(3_500),
    })
    startAt('/stores')
    await vi.waitFor(() => expect(within(row(2)).getByText(failedText)).toBeInTheDocument())
    // The first bucketing of a run starts the worker: seconds on a loaded machine.
    await vi.waitFor(() => expect(within(row(1)).getByTestId('store-today')).toHaveTextContent('12,000원'), {
      timeout: 8000,
    })
    expect(within(row(3)).getByTestId('store-today')).toHaveTextContent('3,500원')
    expect(within(row(1)).queryByText(failedText)).not.toBeInTheDocument()
    expect(within(row(3)).queryByText(failedText)).not.toBeInTheDocument()
    expect(within(row(2)).queryByTestId('store-today')).not.toBeInTheDocument()
    // The failed store is the one left out of the total, and the total says so; nothing claims to be offline.
    expect(screen.getByTestId('total-today')).toHaveTextContent('15,500원')
    expect(screen.getByTestId('total-note')).toHaveTextContent(/^매장 1곳은 합계에서 빠짐$/)
    expect(screen.queryByText(/^오프라인 ·/)).not.toBeInTheDocument()
    expect(server.count('GET /api/v0/store/2/usage')).toBeGreaterThan(0)
  })

  it('a refresh answered with a server error after figures came: the row keeps them and says they may be old', async () => {
    let failing = false
    fakeServer({
      'GET /api/v0/store/1/usage': () => todaysSale(12_000),
      'GET /api/v0/store/2/usage': () => (failing ? json(500, { message: '서버 오류' }) : todaysSale(7_000)),
      'GET /api/v0/store/3/usage': () => todaysSale(3_500),
    })
    const { queryClient } = startAt('/stores')
    await vi.waitFor(() => expect(within(row(2)).getByTestId('store-today')).toHaveTextContent('7,000원'))
    const year = new Date().getUTCFullYear()
    const fetchedAt = queryClient.getQueryState(['usage', 2, year])?.dataUpdatedAt ?? Number.NaN
    const note = `새 매출을 불러오지 못했습니다 · ${dayAndTime(fetchedAt)} 기준`
    // Fresh figures carry no note.
    expect(within(row(2)).queryByText(note)).not.toBeInTheDocument()
    failing = true
    await queryClient.refetchQueries({ queryKey: ['usage', 2, year] }).catch(() => {})
    await vi.waitFor(() => expect(queryClient.getQueryState(['usage', 2, year])?.status).toBe('error'))
    // The kept figures stay, said to be as of their time (as the sales screen says it), and are not
    // called a failure or a connection trouble; the other rows carry no note.
    await vi.waitFor(() => expect(within(row(2)).getByText(note)).toBeInTheDocument())
    expect(within(row(2)).getByTestId('store-today')).toHaveTextContent('7,000원')
    expect(within(row(2)).queryByText(failedText)).not.toBeInTheDocument()
    expect(within(row(2)).queryByText(/^연결 안 됨/)).not.toBeInTheDocument()
    expect(within(row(1)).queryByText(/기준$/)).not.toBeInTheDocument()
    expect(within(row(3)).queryByText(/기준$/)).not.toBeInTheDocument()
    expect(screen.getByTestId('total-today')).toHaveTextContent('22,500원')
    expect(screen.getByTestId('total-note')).toHaveTextContent(/^매장 1곳은 이전 매출로 합산$/)
    expect(screen.queryByText(/^오프라인 ·/)).not.toBeInTheDocument()
  })

  it('no answer at all for one store (its request fails on the network): the other rows stay', async () => {
    fakeServer({
      'GET /api/v0/store/1/usage': () => todaysSale(12_000),
      'GET /api/v0/store/2/usage': () => Promise.reject(new TypeError('Failed to fetch')),
      'GET /api/v0/store/3/usage': () => todaysSale(3_500),
    })
    startAt('/stores')
    await vi.waitFor(() => expect(within(row(3)).getByTestId('store-today')).toHaveTextContent('3,500원'))
    // The others answered, so the device is not offline: only that row says its store did not answer,
    // and it does not claim to be loading.
    await vi.waitFor(() =>
      expect(within(row(2)).getByText('연결되지 않아 불러오지 못했습니다')).toBeInTheDocument(),
    )
    expect(row(2).querySelector('[aria-busy="true"]')).toBeNull()
    expect(screen.queryByText(/^오프라인 ·/)).not.toBeInTheDocument()
    expect(within(row(1)).getByTestId('store-today')).toHaveTextContent('12,000원')
    expect(within(row(2)).queryByTestId('store-today')).not.toBeInTheDocument()
    expect(screen.getByTestId('total-today')).toHaveTextContent('15,500원')
    expect(screen.getByTestId('total-note')).toHaveTextContent(/^매장 1곳은 합계에서 빠짐$/)
  })

  it('kept figures of a store that did not answer show in its row with the time they are from', async () => {
    fakeServer({
      'GET /api/v0/store/1/usage': () => todaysSale(12_000),
      'GET /api/v0/store/2/usage': () => Promise.reject(new TypeError('Failed to fetch')),
      'GET /api/v0/store/3/usage': () => todaysSale(3_500),
    })
    const { queryClient } = startAt('/stores')
    const now = new Date()
    const year = now.getUTCFullYear()
    // Store 2's figures as kept from an earlier visit.
    const { bucketUsage } = await import('../../src/workers/bucket-exact.ts')
    const startOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
    const bytes = new TextEncoder().encode(
      JSON.stringify({ usages: [{ createdAt: new Date(startOfToday).toISOString(), amount: 7_000 }] }),
    )
    queryClient.setQueryData(
      ['usage', 2, year],
      { buckets: bucketUsage(bytes.buffer, year), etag: 'W/"k"' },
      {
        updatedAt: Date.UTC(2026, 10, 20, 14, 5),
      },
    )
    await queryClient.refetchQueries()
    await vi.waitFor(() =>
      expect(
        within(row(2)).getByText(`연결 안 됨 · ${dayAndTime(Date.UTC(2026, 10, 20, 14, 5))} 기준`),
      ).toBeInTheDocument(),
    )
    expect(within(row(2)).getByTestId('store-today')).toHaveTextContent('7,000원')
    // The other stores' answers may come after store 2's failure.
    await vi.waitFor(() => expect(screen.getByTestId('total-today')).toHaveTextContent('22,500원'))
    expect(screen.getByTestId('total-note')).toHaveTextContent(/^매장 1곳은 이전 매출로 합산$/)
    expect(screen.queryByText(/^오프라인 ·/)).not.toBeInTheDocument()
  })
})
