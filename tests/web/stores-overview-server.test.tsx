// The stores overview from the server's overview call (decision 110) against the same overview from
// every store's year (any other provider: the call answers 404): on the same records at the same instant
// the screen shows the very same figures, quiet notice and totals; from the server it asks for no year,
// and it follows the overview with one held call that moves the rows when the figures change.
import { cleanup, screen, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { StoresOverviewAnswer } from '../../contract/api.ts'
import { storeFigures } from '../../domain/store-overview.ts'
import { seededRandom } from '../../scripts/seeded-random.ts'
import { bucketUsage } from '../../src/workers/bucket-exact.ts'
// Loaded ahead, as bucket-exact.ts loaded it when the two were one module: the screen's bucketing (no
// worker in happy-dom) then starts at once, within the first wait below.
import '../../src/workers/bucket-feed.ts'
import { signedIn, startAt } from './app-at.tsx'
import { type Call, fakeServer, json } from './fake-server.ts'

const stores = [
  { id: 1, name: '역삼점', images: [] },
  { id: 2, name: '선릉점', images: [] },
  { id: 3, name: '대치점', images: [] },
]
// 14:20 in Korea on a Sunday.
const now = new Date('2026-03-15T05:20:00.000Z')
const hour = 3_600_000

const generator = seededRandom

/** A store's records from `weeks` weeks back to `stop` before now, a few an hour in the day (KST). */
function records(seed: number, weeks: number, stop: number) {
  const random = generator(seed)
  const out: { createdAt: string; amount: number }[] = []
  for (let h = now.getTime() - weeks * 7 * 24 * hour; h < now.getTime() - stop; h += hour) {
    const busy = new Date(h).getUTCHours() <= 14 ? 3 : 0.3
    for (let n = Math.floor(busy + random()); n > 0; n--) {
      const at = h + Math.floor(random() * hour)
      if (at >= now.getTime() - stop) continue
      const amount = random() < 0.05 ? -1000 : 100 * (5 + Math.floor(random() * 60))
      out.push({ createdAt: new Date(at).toISOString(), amount })
    }
  }
  return out
}

// A store gone quiet 6 hours ago (past the quiet rule's 12 expected sales), a steady store (with last year's December for the history), an empty one.
const byStore = new Map([
  [1, records(1, 10, 6 * hour)],
  [2, records(2, 16, 0)],
  [3, []],
])
const ofYear = (storeId: number, year: number) =>
  (byStore.get(storeId) ?? []).filter(({ createdAt }) => new Date(createdAt).getUTCFullYear() === year)
const bucketsOf = (storeId: number, year: number) =>
  bucketUsage(new TextEncoder().encode(JSON.stringify({ usages: ofYear(storeId, year) })), year)

/** The server's answer, computed by the server's own function from the same records. */
function serverAnswer(rev: number): StoresOverviewAnswer {
  return {
    at: now.toISOString(),
    rev,
    stores: stores.map(({ id }) => {
      const figures = storeFigures(bucketsOf(id, 2026), bucketsOf(id, 2025), now)
      if (!figures) throw new Error('another year')
      return { id, ...figures, devices: { total: 0, offline: 0 } }
    }),
  }
}

const years = () =>
  Object.fromEntries(
    stores.map(({ id }) => [
      `GET /api/v0/store/${id}/usage`,
      (call: Call) => json(200, { usages: ofYear(id, Number(call.search.get('year'))) }),
    ]),
  )

/** What the screen shows: every row's text, and the totals. */
function shown() {
  return {
    rows: stores.map(({ id }) => screen.getByTestId(`store-row-${id}`).textContent),
    today: screen.getByTestId('total-today').textContent,
    month: screen.getByTestId('total-month').textContent,
  }
}

const never = () => new Promise<Response>(() => {})

/**
 * Our server's overview: every store at rev 7, then, asked after 7, a stream that opens with a comment
 * and sends what the test pushes; asked after anything else, held for ever.
 */
function streamingOverview() {
  const encoder = new TextEncoder()
  const pushed: { push?: (event: unknown) => void } = {}
  const server = fakeServer({
    'GET /api/v0/stores/overview': (call) => {
      if (!call.search.has('after')) return json(200, serverAnswer(7))
      if (call.search.get('after') !== '7') return never()
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(':\n\n'))
          pushed.push = (event) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`))
        },
      })
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    },
  })
  return { server, pushed }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now })
  vi.spyOn(console, 'error').mockImplementation(() => {})
  signedIn(stores)
})

describe('the stores overview, from the server or from the years', () => {
  it('shows the same figures both ways on the same records, and asks for no year from the server', async () => {
    // Another provider: no overview call; every store's year (and last year's) as before.
    const other = fakeServer(years())
    startAt('/stores')
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('store-row-1')).getByRole('status')).toHaveTextContent('결제 없음'),
    )
    await vi.waitFor(() => expect(other.calls.filter((call) => call.path.endsWith('/usage'))).toHaveLength(6))
    await vi.waitFor(() => expect(screen.getByTestId('store-row-2')).toHaveTextContent('선릉점오늘'))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const fromYears = shown()
    expect(other.count('GET /api/v0/stores/overview')).toBe(1)
    cleanup()

    // Our server: one small answer.
    const ours = fakeServer({
      ...years(),
      'GET /api/v0/stores/overview': (call) =>
        call.search.has('after') ? never() : json(200, serverAnswer(7)),
    })
    startAt('/stores')
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('store-row-1')).getByRole('status')).toHaveTextContent('결제 없음'),
    )
    expect(shown()).toEqual(fromYears)
    // The figures differ from store to store and say something (not three empty rows).
    expect(fromYears.rows[1]).toMatch(/평소 같은 시각보다/)
    expect(fromYears.today).not.toBe('0원')
    expect(ours.calls.filter((call) => call.path.endsWith('/usage'))).toHaveLength(0)
  })

  it('follows the overview with one held call: a change moves the rows without a year asked for', async () => {
    let release: ((answer: Response) => void) | undefined
    const server = fakeServer({
      ...years(),
      'GET /api/v0/stores/overview': (call) => {
        if (!call.search.has('after')) return json(200, serverAnswer(7))
        if (call.search.get('after') === '7')
          return new Promise<Response>((resolve) => {
            release = resolve
          })
        return never()
      },
    })
    startAt('/stores')
    await vi.waitFor(() => expect(release).toBeDefined())
    const held = server.calls.filter((call) => call.search.has('after'))
    expect(held).toHaveLength(1)
    expect(held[0]?.search.get('wait')).toBe('25')
    const before = screen.getByTestId('store-row-3').textContent
    const moved = serverAnswer(8)
    const empty = moved.stores[2] as (typeof moved.stores)[number]
    moved.stores[2] = {
      ...empty,
      today: { sum: 4500, count: 1 },
      month: { sum: 4500, count: 1 },
      lastSaleAt: '2026-03-15T05:19:00.000Z',
    }
    release?.(json(200, moved))
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('store-row-3')).getByTestId('store-today')).toHaveTextContent(
        '4,500원',
      ),
    )
    expect(screen.getByTestId('store-row-3').textContent).not.toBe(before)
    // The next held call asks after the new token; still one at a time, and no year asked for.
    await vi.waitFor(() =>
      expect(server.calls.filter((call) => call.search.get('after') === '8')).toHaveLength(1),
    )
    expect(server.calls.filter((call) => call.search.has('after'))).toHaveLength(2)
    expect(server.calls.filter((call) => call.path.endsWith('/usage'))).toHaveLength(0)
  })

  it('an unchanged answer keeps the figures and asks again with the same token', async () => {
    let answered = false
    const server = fakeServer({
      'GET /api/v0/stores/overview': (call) => {
        if (!call.search.has('after')) return json(200, serverAnswer(7))
        if (answered) return never()
        answered = true
        return json(200, { at: now.toISOString(), rev: 7, unchanged: true })
      },
    })
    startAt('/stores')
    await vi.waitFor(() =>
      expect(server.calls.filter((call) => call.search.get('after') === '7')).toHaveLength(2),
    )
    expect(within(screen.getByTestId('store-row-1')).getByRole('status')).toHaveTextContent('결제 없음')
    expect(server.count('GET /api/v0/stores/overview')).toBe(3)
  })

  it('takes a stream of changed stores into the rows it shows: the screen an answer of every store gives', async () => {
    const { server, pushed } = streamingOverview()
    startAt('/stores')
    await vi.waitFor(() => expect(pushed.push).toBeDefined())
    const [held] = server.calls.filter((call) => call.search.has('after'))
    expect(held?.search.get('stores')).toBe('changed')
    expect(held?.accept).toBe('text/event-stream')
    const before = shown()
    const moved = serverAnswer(8)
    const third = {
      ...(moved.stores[2] as (typeof moved.stores)[number]),
      today: { sum: 4500, count: 1 },
      month: { sum: 4500, count: 1 },
      lastSaleAt: '2026-03-15T05:19:00.000Z',
    }
    // Only the third store, on the overview of rev 7: the first two rows stay as they were.
    pushed.push?.({ at: now.toISOString(), rev: 8, after: 7, stores: [third] })
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('store-row-3')).getByTestId('store-today')).toHaveTextContent(
        '4,500원',
      ),
    )
    const after = shown()
    expect(after.rows.slice(0, 2)).toEqual(before.rows.slice(0, 2))
    moved.stores[2] = third
    // The same screen as an answer of every store would give.
    cleanup()
    fakeServer({
      'GET /api/v0/stores/overview': (call) => (call.search.has('after') ? never() : json(200, moved)),
    })
    signedIn(stores)
    startAt('/stores')
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('store-row-3')).getByTestId('store-today')).toHaveTextContent(
        '4,500원',
      ),
    )
    expect(shown()).toEqual(after)
  })

  it('ends a stream whose changed stores follow another overview than the one kept, and asks again after its own', async () => {
    const encoder = new TextEncoder()
    const server = fakeServer({
      'GET /api/v0/stores/overview': (call) => {
        if (!call.search.has('after')) return json(200, serverAnswer(7))
        if (server.calls.filter((c) => c.search.has('after')).length > 1) return never()
        const moved = serverAnswer(9)
        const event = { at: now.toISOString(), rev: 9, after: 8, stores: [moved.stores[0]] }
        return new Response(encoder.encode(`data: ${JSON.stringify(event)}\n\n`), {
          headers: { 'content-type': 'text/event-stream' },
        })
      },
    })
    startAt('/stores')
    await vi.waitFor(() => expect(server.calls.filter((call) => call.search.has('after'))).toHaveLength(2))
    // Not taken: the kept overview is still rev 7's, and the next call asks after it.
    expect(
      server.calls.filter((call) => call.search.has('after')).map((call) => call.search.get('after')),
    ).toEqual(['7', '7'])
  })

  it('keeps its stream when an event brings the figures it already keeps (another tab shared them first)', async () => {
    const { server, pushed } = streamingOverview()
    startAt('/stores')
    await vi.waitFor(() => expect(pushed.push).toBeDefined())
    const moved = serverAnswer(8)
    const third = { ...(moved.stores[2] as (typeof moved.stores)[number]), today: { sum: 4500, count: 1 } }
    // On another rev than the kept one, but bringing the kept rev: nothing to take, the stream goes on.
    pushed.push?.({ at: now.toISOString(), rev: 7, after: 5, stores: [moved.stores[0]] })
    pushed.push?.({ at: now.toISOString(), rev: 8, after: 7, stores: [third] })
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('store-row-3')).getByTestId('store-today')).toHaveTextContent(
        '4,500원',
      ),
    )
    expect(server.calls.filter((call) => call.search.has('after'))).toHaveLength(1)
  })
})
