import { QueryClient } from '@tanstack/react-query'
import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { encodeUsage } from '../../../contract/usage-compact.ts'
import { compactUsageType, usageAccept } from '../../../contract/usage-compact-type.ts'
import {
  inTurns,
  type Usage,
  usageFetchesAtOnce,
  usageKeys,
  usageQuery,
  usageRefetchMs,
} from '../../../src/figures/year-query.ts'
import { liveFailing } from '../../../src/live/followed.ts'
import { type Call, fakeServer, json } from '../fake-server.ts'

const answer = (etag: string, usages: unknown[]) =>
  new Response(JSON.stringify({ usages }), {
    status: 200,
    headers: { 'content-type': 'application/json', etag, 'cache-control': 'no-store' },
  })

beforeEach(() => {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
})

describe('the usage query', () => {
  it('keeps the ETag with the buckets, and a 304 keeps them as they are, with no bucketing', async () => {
    let version = 'W/"v1"'
    let records = [{ createdAt: '2026-03-01T09:15:00.000Z', amount: 4000 }]
    const server = fakeServer({
      'GET /api/v0/store/1/usage': (call: Call) =>
        call.ifNoneMatch === version
          ? new Response(null, { status: 304, headers: { etag: version } })
          : answer(version, records),
    })
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const first = await client.fetchQuery(usageQuery(1, 2026))
    expect(first.etag).toBe('W/"v1"')
    expect(first.buckets.total).toBe(4000)
    expect(server.calls[0]?.ifNoneMatch).toBeNull()
    const firstAt = client.getQueryState(usageKeys.year(1, 2026))?.dataUpdatedAt ?? 0

    const read = vi.spyOn(Response.prototype, 'arrayBuffer')
    await new Promise((resolve) => setTimeout(resolve, 5))
    await client.refetchQueries({ queryKey: usageKeys.year(1, 2026) })
    expect(server.calls[1]?.ifNoneMatch).toBe('W/"v1"')
    expect(client.getQueryData<Usage>(usageKeys.year(1, 2026))).toBe(first)
    expect(read).not.toHaveBeenCalled()
    // Confirmed current just now.
    expect(client.getQueryState(usageKeys.year(1, 2026))?.dataUpdatedAt).toBeGreaterThan(firstAt)

    version = 'W/"v2"'
    records = [...records, { createdAt: '2026-04-01T00:00:00.000Z', amount: 3000 }]
    await client.refetchQueries({ queryKey: usageKeys.year(1, 2026) })
    expect(server.calls[2]?.ifNoneMatch).toBe('W/"v1"')
    expect(client.getQueryData<Usage>(usageKeys.year(1, 2026))).toMatchObject({
      etag: 'W/"v2"',
      buckets: { total: 7000 },
    })
  })

  it('asks for the compact form before JSON, and buckets whichever the answer’s Content-Type says it is', async () => {
    const records = [
      { createdAt: '2026-03-01T09:15:00.123Z', amount: 4000 },
      { createdAt: '2026-03-01T09:15:00.123Z', amount: -1500 },
      { createdAt: '2026-12-31T23:59:59.999Z', amount: 3500 },
    ]
    const compact = encodeUsage(
      records.map((r) => Date.parse(r.createdAt)),
      records.map((r) => r.amount),
    )
    let form: 'compact' | 'json' | 'json-untyped' = 'compact'
    const server = fakeServer({
      'GET /api/v0/store/1/usage': () =>
        form === 'compact'
          ? new Response(compact, {
              status: 200,
              headers: { 'content-type': compactUsageType, etag: 'W/"c"' },
            })
          : form === 'json'
            ? answer('W/"j"', records)
            : new Response(JSON.stringify({ usages: records }), { status: 200, headers: { etag: 'W/"u"' } }),
    })
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const fromCompact = await client.fetchQuery(usageQuery(1, 2026))
    expect(server.calls[0]?.accept).toBe(usageAccept)
    expect(fromCompact).toMatchObject({ etag: 'W/"c"', buckets: { total: 6000, sales: 2, records: 3 } })

    // Another provider's JSON, typed or not: the same buckets.
    for (const other of ['json', 'json-untyped'] as const) {
      form = other
      client.clear()
      const fromJson = await client.fetchQuery(usageQuery(1, 2026))
      expect(fromJson.buckets).toEqual(fromCompact.buckets)
    }
    expect(server.calls.map((call) => call.accept)).toEqual([usageAccept, usageAccept, usageAccept])
  })

  it('a 304 for buckets it does not have is an error, not empty figures', async () => {
    fakeServer({ 'GET /api/v0/store/1/usage': () => new Response(null, { status: 304 }) })
    // Only reachable through a server that answers 304 to a request without If-None-Match.
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    client.setQueryData<Usage>(usageKeys.year(1, 2026), undefined)
    await expect(client.fetchQuery(usageQuery(1, 2026))).rejects.toThrow()
  })
})

describe('usage fetches', () => {
  it('run at most 3 at once, the others in turn as those finish', async () => {
    let open = 0
    let most = 0
    const releases: (() => void)[] = []
    fakeServer(
      Object.fromEntries(
        [1, 2, 3, 4, 5, 6, 7].map((id) => [
          `GET /api/v0/store/${id}/usage`,
          async () => {
            open += 1
            most = Math.max(most, open)
            await new Promise<void>((resolve) => releases.push(resolve))
            open -= 1
            return json(200, { usages: [] })
          },
        ]),
      ),
    )
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const all = Promise.all([1, 2, 3, 4, 5, 6, 7].map((id) => client.fetchQuery(usageQuery(id, 2026))))
    await vi.waitFor(() => expect(open).toBe(usageFetchesAtOnce))
    while (releases.length > 0 || open > 0) {
      releases.shift()?.()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect((await all).map((usage) => usage.buckets.total)).toEqual([0, 0, 0, 0, 0, 0, 0])
    expect(most).toBe(usageFetchesAtOnce)
  })

  it('a finishing fetch hands its place to the next waiting one: one asked for in between waits too', async () => {
    const inTurn = inTurns(1)
    let open = 0
    let most = 0
    const task = (done: Promise<void>) => async () => {
      open += 1
      most = Math.max(most, open)
      await done
      open -= 1
    }
    let finishFirst = () => {}
    const first = new Promise<void>((resolve) => {
      finishFirst = resolve
    })
    const runs = [inTurn(task(first)), inTurn(task(Promise.resolve()))]
    // New fetches asked for at every step (microtask) of the first one's finishing: one of them comes
    // after it has left and before the waiting one has resumed.
    const askAfter = (steps: number): void =>
      queueMicrotask(() =>
        steps === 0 ? void runs.push(inTurn(task(Promise.resolve()))) : askAfter(steps - 1),
      )
    for (let steps = 0; steps < 12; steps += 1) askAfter(steps)
    finishFirst()
    while (runs.length < 14) await new Promise((resolve) => setTimeout(resolve, 1))
    await Promise.all(runs)
    expect(most).toBe(1)
  })
})

describe('a screen left open', () => {
  it("asks again for the current year's records every 5 minutes, never for a past year's", () => {
    const year = new Date().getUTCFullYear()
    const interval = (shown: number, data?: Partial<Usage>, followed?: boolean) => {
      const { refetchInterval } = usageQuery(1, shown, followed)
      const query = { state: { data }, queryHash: `q${shown}` }
      return typeof refetchInterval === 'function' ? refetchInterval(query as never) : refetchInterval
    }
    expect(interval(year)).toBe(usageRefetchMs)
    expect(usageRefetchMs).toBe(5 * 60_000)
    expect(interval(year - 1)).toBe(false)
    // From a server that says its revision, the live loop follows the year instead (live.ts)...
    expect(interval(year, { rev: 4 })).toBe(false)
    // ...unless the screen does not follow it, or its changes call failed: then as before.
    expect(interval(year, { rev: 4 }, false)).toBe(usageRefetchMs)
    liveFailing.add(`q${year}`)
    expect(interval(year, { rev: 4 })).toBe(usageRefetchMs)
    liveFailing.clear()
  })

  it('takes the revision the answer says, and a 304 the later revision of the same records', async () => {
    let rev = '7'
    fakeServer({
      'GET /api/v0/store/1/usage': (call: Call) =>
        call.ifNoneMatch === 'W/"a"'
          ? new Response(null, { status: 304, headers: { etag: 'W/"a"', 'usage-revision': rev } })
          : new Response(JSON.stringify({ usages: [] }), {
              headers: { 'content-type': 'application/json', etag: 'W/"a"', 'usage-revision': rev },
            }),
    })
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const first = await client.fetchQuery(usageQuery(1, 2026))
    expect(first.rev).toBe(7)
    rev = '9'
    await client.refetchQueries({ queryKey: usageKeys.year(1, 2026) })
    expect(client.getQueryData<Usage>(usageKeys.year(1, 2026))).toEqual({ ...first, rev: 9 })
  })
})
