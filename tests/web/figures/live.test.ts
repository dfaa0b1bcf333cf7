// The live loop (src/figures/live.ts, a configuration of src/live/follower.ts) between tabs: each "tab" is a fresh copy of the app's modules
// (their own session generation, channel and query cache) sharing the cookies, the Web Locks and the
// BroadcastChannel, as tabs of one browser do. The network is a fake; the lock manager a small fake of
// navigator.locks (happy-dom has none).
import { onlineManager, QueryClient } from '@tanstack/react-query'
import Cookies from 'js-cookie'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { emptyBuckets } from '../../../domain/buckets.ts'
import type { ChangesAnswer } from '../../../domain/changes.ts'
import type { Usage } from '../../../src/figures/year-query.ts'
import { type Call, fakeServer } from '../fake-server.ts'

const key = ['usage', 1, 2026] as const

/** navigator.locks as far as the loop uses it: one holder per name, the others wait in turn (or give up on their signal). */
function fakeLocks() {
  const tails = new Map<string, Promise<unknown>>()
  return {
    request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<unknown>) {
      const turn = (tails.get(name) ?? Promise.resolve()).then(() => {
        if (options.signal?.aborted) throw new DOMException('aborted', 'AbortError')
        return callback()
      })
      tails.set(
        name,
        turn.catch(() => {}),
      )
      return turn
    },
  }
}

async function openTab(rev = 1) {
  vi.resetModules()
  const live = await import('../../../src/figures/live.ts')
  const tokens = await import('../../../src/lib/tokens.ts')
  const yearQuery = await import('../../../src/figures/year-query.ts')
  const followed = await import('../../../src/live/followed.ts')
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  client.setQueryData<Usage>(key, { buckets: emptyBuckets(2026), etag: 'W/"a"', rev })
  return { live, tokens, yearQuery, followed, client, usage: () => client.getQueryData<Usage>(key) }
}

/** The changes call of a fake server: answers `answers[after]` at once, and holds every other call. */
function changesServer(answers: Record<number, ChangesAnswer>) {
  const server = fakeServer({
    'GET /api/v0/store/1/usage/changes': (call: Call) =>
      answers[Number(call.search.get('after'))] !== undefined
        ? new Response(JSON.stringify(answers[Number(call.search.get('after'))]), {
            headers: { 'content-type': 'application/json' },
          })
        : new Promise<Response>(() => {}),
  })
  return { ...server, afters: () => server.calls.map((call) => Number(call.search.get('after'))) }
}

const sale = { op: 'put' as const, createdAt: '2026-03-01T10:00:00.000Z', amount: 4000 }
let visibility: DocumentVisibilityState = 'visible'
const stops: (() => void)[] = []

beforeEach(() => {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  visibility = 'visible'
  vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => visibility)
  vi.stubGlobal('navigator', Object.defineProperty(Object.create(navigator), 'locks', { value: fakeLocks() }))
  onlineManager.setOnline(true)
})
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
})

describe('the live loop', () => {
  it('asks in one tab only, which shares what it learns; another tab takes over when it closes', async () => {
    const server = changesServer({ 1: { rev: 2, changes: [sale], count: 1, sum: 4000 } })
    const a = await openTab()
    const b = await openTab()
    stops.push(a.live.follow(a.client, 1, 2026))
    const stopB = b.live.follow(b.client, 1, 2026)
    stops.push(stopB)
    await vi.waitFor(() => expect(b.usage()?.rev).toBe(2))
    expect(b.usage()?.buckets).toMatchObject({
      total: 4000,
      sales: 1,
      lastSaleAt: Date.parse(sale.createdAt),
    })
    expect(a.usage()?.buckets.total).toBe(4000)
    await vi.waitFor(() => expect(server.afters()).toEqual([1, 2]))
    // Merged figures no longer match the ETag of the answer they came from.
    expect(a.usage()?.etag).toBeNull()
    // Tab a closes: b asks in its place, from what it keeps.
    ;(stops.shift() as () => void)()
    await vi.waitFor(() => expect(server.afters()).toEqual([1, 2, 2]))
  })

  it('asks for a stream and merges each of its events as a held answer; a comment keeps the figures current; at its end it asks again', async () => {
    const second = { op: 'put' as const, createdAt: '2026-03-02T10:00:00.000Z', amount: 1500 }
    const text = `:\n\ndata: ${JSON.stringify({ rev: 2, changes: [sale], count: 1, sum: 4000 })}\r\n\r\n:\n\ndata: ${JSON.stringify({ rev: 3, changes: [second], count: 2, sum: 5500 })}\n\n`
    let pushMore: (() => void) | undefined
    const server = fakeServer({
      'GET /api/v0/store/1/usage/changes': (call: Call) => {
        if (call.search.get('after') !== '1') return new Promise<Response>(() => {})
        // The events in chunks split mid-line and mid-CRLF; the last ones only when the test says so.
        const cut = text.indexOf('\n:') + 1
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            const bytes = new TextEncoder()
            for (const piece of [text.slice(0, 17), text.slice(17, cut)])
              controller.enqueue(bytes.encode(piece))
            pushMore = () => {
              controller.enqueue(bytes.encode(text.slice(cut)))
              controller.close()
            }
          },
        })
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
      },
    })
    const a = await openTab()
    stops.push(a.live.follow(a.client, 1, 2026))
    await vi.waitFor(() => expect(a.usage()?.rev).toBe(2))
    expect(server.calls[0]?.accept).toBe('text/event-stream')
    expect(a.usage()?.buckets.total).toBe(4000)
    const asOf = a.client.getQueryState(key)?.dataUpdatedAt ?? 0
    await new Promise((resolve) => setTimeout(resolve, 5))
    ;(pushMore as () => void)()
    await vi.waitFor(() => expect(a.usage()?.rev).toBe(3))
    expect(a.usage()?.buckets).toMatchObject({ total: 5500, sales: 2 })
    expect(a.client.getQueryState(key)?.dataUpdatedAt).toBeGreaterThan(asOf)
    // One call for both events; when the stream ended, asked again from the last revision.
    await vi.waitFor(() =>
      expect(server.calls.map((call) => Number(call.search.get('after')))).toEqual([1, 3]),
    )
  })

  it('asks nothing while the tab is hidden, and at once when it is shown', async () => {
    const server = changesServer({})
    const a = await openTab()
    visibility = 'hidden'
    stops.push(a.live.follow(a.client, 1, 2026))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(server.afters()).toEqual([])
    visibility = 'visible'
    document.dispatchEvent(new Event('visibilitychange'))
    await vi.waitFor(() => expect(server.afters()).toEqual([1]))
    // Hidden again: the held call is given up, and the lock with it.
    visibility = 'hidden'
    document.dispatchEvent(new Event('visibilitychange'))
    const b = await openTab()
    visibility = 'visible'
    stops.push(b.live.follow(b.client, 1, 2026))
    await vi.waitFor(() => expect(server.afters()).toEqual([1, 1]))
  })

  it('asks nothing offline, keeping the figures and their "as of"; back online it catches up at once', async () => {
    const server = changesServer({ 1: { rev: 2, changes: [sale], count: 1, sum: 4000 } })
    const a = await openTab()
    const asOf = a.client.getQueryState(key)?.dataUpdatedAt
    onlineManager.setOnline(false)
    stops.push(a.live.follow(a.client, 1, 2026))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(server.afters()).toEqual([])
    expect(a.client.getQueryState(key)?.dataUpdatedAt).toBe(asOf)
    onlineManager.setOnline(true)
    await vi.waitFor(() => expect(a.usage()?.rev).toBe(2))
    expect(a.usage()?.buckets.total).toBe(4000)
  })

  it('ends with the session: the held call is aborted, and nothing answered or shared afterwards is written', async () => {
    let answer: (response: Response) => void = () => {}
    const server = fakeServer({
      'GET /api/v0/store/1/usage/changes': () => new Promise<Response>((resolve) => (answer = resolve)),
    })
    const a = await openTab()
    const b = await openTab()
    stops.push(a.live.follow(a.client, 1, 2026))
    await vi.waitFor(() => expect(server.calls).toHaveLength(1))
    const signal = server.fetch.mock.calls[0]?.[1]?.signal as AbortSignal
    // The logout's first step (wipeDevice): the session ends, and its requests are aborted.
    a.tokens.removeTokens()
    expect(signal.aborted).toBe(true)
    answer(new Response(JSON.stringify({ rev: 2, changes: [sale], count: 1, sum: 4000 })))
    // Another tab that still shares what it learned: the ended session takes none of it.
    b.client.setQueryData<Usage>(key, { buckets: { ...emptyBuckets(2026), total: 1 }, etag: null, rev: 5 })
    new BroadcastChannel('live-figures').postMessage({ key, usage: b.usage(), at: Date.now() })
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(a.usage()).toMatchObject({ rev: 1, buckets: { total: 0 } })
    expect(server.calls).toHaveLength(1)
  })

  it('retries a failed call, and falls back to the 5-minute refetch only when it fails again', async () => {
    const server = fakeServer({
      'GET /api/v0/store/1/usage/changes': () =>
        new Response(JSON.stringify({ message: '잠시 후 다시 시도해 주세요.' }), { status: 503 }),
    })
    const a = await openTab()
    stops.push(a.live.follow(a.client, 1, 2026))
    await vi.waitFor(() => expect(server.calls).toHaveLength(1))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(a.followed.liveFailing.size).toBe(0)
    // Asked again after 2 s; failing again, the year query fetches as before.
    await vi.waitFor(() => expect(server.calls).toHaveLength(2), { timeout: 3000 })
    await vi.waitFor(() => expect(a.followed.liveFailing.size).toBe(1))
  })

  it('falls back to the 5-minute refetch when the server has no changes call (404)', async () => {
    const server = fakeServer({})
    const a = await openTab()
    stops.push(a.live.follow(a.client, 1, 2026))
    await vi.waitFor(() => expect(a.followed.liveFailing.size).toBe(1))
    const { refetchInterval } = a.yearQuery.usageQuery(1, 2026)
    const query = a.client.getQueryCache().find({ queryKey: key })
    if (typeof refetchInterval !== 'function' || !query) throw new Error('no interval rule')
    // (2026 is this year only in 2026: the rule for a past year asks nothing either way.)
    expect(refetchInterval(query as never)).toBe(new Date().getUTCFullYear() === 2026 ? 5 * 60_000 : false)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(server.calls).toHaveLength(1)
  })
})
