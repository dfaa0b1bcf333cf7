// A sign-in asks for the figures of the store it opens as soon as that store is known (figures/year-request.ts),
// and the usage query takes that answer over rather than asking again.
import { QueryClient } from '@tanstack/react-query'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { signIn } from '../../../src/features/auth/sign-in.ts'
import { currentPeriod } from '../../../src/figures/clock.ts'
import { usageQuery } from '../../../src/figures/year-query.ts'
import { askUsageEarly, takeUsageEarly } from '../../../src/figures/year-request.ts'
import { page } from '../../../src/lib/page.ts'
import { wipeDevice } from '../../../src/lib/session-state.ts'
import { type Call, fakeServer, json } from '../fake-server.ts'

const { year } = currentPeriod()
const user = { id: 1, name: '김사장', phone: '01012345678', image: null }
const stores = [
  { id: 2, name: '선릉점', images: [] },
  { id: 3, name: '역삼점', images: [] },
]
const usage = (amount: number) =>
  new Response(JSON.stringify({ usages: [{ createdAt: `${year}-03-01T09:15:00.000Z`, amount }] }), {
    status: 200,
    headers: { 'content-type': 'application/json', etag: 'W/"v1"' },
  })

/** Calls as "METHOD /path" in the order they were made. */
const order = (calls: Call[]) => calls.map((call) => `${call.method} ${call.path}`)

beforeEach(() => {
  vi.spyOn(page, 'alert').mockImplementation(() => {})
  vi.spyOn(page, 'reload').mockImplementation(() => {})
})

describe('the figures of the store a sign-in opens', () => {
  it('are asked for while the profile is fetched when our server names the store; the query takes them over', async () => {
    let answerProfile: () => void = () => {}
    const server = fakeServer({
      'POST /api/v0/user/sign': () => json(200, { token: { access: 'a1', refresh: 'r1' }, firstStoreId: 2 }),
      'GET /api/v0/user': () =>
        new Promise<Response>((resolve) => {
          answerProfile = () => resolve(json(200, { user, stores }))
        }),
      'GET /api/v0/store/2/usage': () => usage(4000),
    })
    const signingIn = signIn('01012345678', '1234')
    await vi.waitFor(() => expect(server.count('GET /api/v0/store/2/usage')).toBe(1))
    // The profile has not answered yet.
    expect(server.count('GET /api/v0/user')).toBe(1)
    answerProfile()
    expect(await signingIn).toBe(true)
    expect(server.calls.find((call) => call.path.endsWith('/usage'))?.search.get('year')).toBe(String(year))

    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const { buckets } = await client.fetchQuery(usageQuery(2, year))
    expect(buckets.total).toBe(4000)
    expect(server.count('GET /api/v0/store/2/usage')).toBe(1)
  })

  it('are asked for once the profile names the store when the server does not (any other provider)', async () => {
    const server = fakeServer({
      'POST /api/v0/user/sign': () => json(200, { token: { access: 'a1', refresh: 'r1' } }),
      'GET /api/v0/user': () => json(200, { user, stores }),
      'GET /api/v0/store/2/usage': () => usage(5000),
    })
    expect(await signIn('01012345678', '1234')).toBe(true)
    expect(order(server.calls)).toEqual([
      'POST /api/v0/user/sign',
      'GET /api/v0/user',
      'GET /api/v0/store/2/usage',
    ])
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    expect((await client.fetchQuery(usageQuery(2, year))).buckets.total).toBe(5000)
    expect(server.count('GET /api/v0/store/2/usage')).toBe(1)
  })

  it('follow the profile when the name in the answer is another store, or not a store id at all', async () => {
    for (const firstStoreId of [3, 'two', -1, 2.5]) {
      const server = fakeServer({
        'POST /api/v0/user/sign': () => json(200, { token: { access: 'a1', refresh: 'r1' }, firstStoreId }),
        'GET /api/v0/user': () => json(200, { user, stores }),
        'GET /api/v0/store/2/usage': () => usage(6000),
        'GET /api/v0/store/3/usage': () => usage(1),
      })
      expect(await signIn('01012345678', '1234')).toBe(true)
      const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
      expect((await client.fetchQuery(usageQuery(2, year))).buckets.total).toBe(6000)
      expect(server.count('GET /api/v0/store/2/usage')).toBe(1)
      expect(server.count('GET /api/v0/store/3/usage')).toBe(firstStoreId === 3 ? 1 : 0)
    }
  })

  it('that failed are asked for again by the query', async () => {
    let failing = true
    const server = fakeServer({
      'POST /api/v0/user/sign': () => json(200, { token: { access: 'a1', refresh: 'r1' }, firstStoreId: 2 }),
      'GET /api/v0/user': () => json(200, { user, stores }),
      'GET /api/v0/store/2/usage': () =>
        failing ? json(500, { message: '서버에 문제가 생겼습니다.' }) : usage(7000),
    })
    expect(await signIn('01012345678', '1234')).toBe(true)
    failing = false
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    expect((await client.fetchQuery(usageQuery(2, year))).buckets.total).toBe(7000)
    expect(server.count('GET /api/v0/store/2/usage')).toBe(2)
  })

  it('are not taken over after the session ended, or a minute later; then their download is stopped', async () => {
    const server = fakeServer({
      'POST /api/v0/user/sign': () => json(200, { token: { access: 'a1', refresh: 'r1' }, firstStoreId: 2 }),
      'GET /api/v0/user': () => json(200, { user, stores }),
      // An answer still downloading: it ends only when the request is aborted.
      'GET /api/v0/store/2/usage': () => new Promise<Response>(() => {}),
    })
    /** Whether the n-th usage request (from 0) was aborted. */
    const aborted = (n: number) =>
      server.fetch.mock.calls.filter(([input]) => String(input).includes('/usage'))[n]?.[1]?.signal?.aborted

    expect(await signIn('01012345678', '1234')).toBe(true)
    await wipeDevice()
    expect(aborted(0)).toBe(true)
    expect(takeUsageEarly(2, year)).toBeUndefined()

    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] })
    try {
      expect(await signIn('01012345678', '1234')).toBe(true)
      expect(aborted(1)).toBe(false)
      vi.advanceTimersByTime(60_001)
      expect(aborted(1)).toBe(true)
      expect(takeUsageEarly(2, year)).toBeUndefined()
    } finally {
      vi.useRealTimers()
    }
    // Taken over once at most.
    askUsageEarly(2, year)
    expect(takeUsageEarly(2, year)).toBeDefined()
    expect(takeUsageEarly(2, year)).toBeUndefined()
    expect(aborted(2)).toBe(false)
  })

  it('of another store than the profile opens stop downloading when the profile names the right one', async () => {
    const server = fakeServer({
      'POST /api/v0/user/sign': () => json(200, { token: { access: 'a1', refresh: 'r1' }, firstStoreId: 3 }),
      'GET /api/v0/user': () => json(200, { user, stores }),
      'GET /api/v0/store/3/usage': () => new Promise<Response>(() => {}),
      'GET /api/v0/store/2/usage': () => usage(6000),
    })
    expect(await signIn('01012345678', '1234')).toBe(true)
    const [store3] = server.fetch.mock.calls.filter(([input]) => String(input).includes('/store/3/usage'))
    expect(store3?.[1]?.signal?.aborted).toBe(true)
    expect(takeUsageEarly(2, year)).toBeDefined()
  })
})
