// The buckets kept on the device for offline use: written with their hourly arrays packed, and read
// back (on the next start) as the very buckets the screen had.
import Cookies from 'js-cookie'
import { beforeEach, expect, it, vi } from 'vitest'
import type { Buckets } from '../../../domain/buckets.ts'
import { bucketUsage } from '../../../src/workers/bucket-exact.ts'

const usages = Array.from({ length: 3000 }, (_, i) => ({
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 9_876_543).toISOString(),
  amount: i % 13 === 0 ? -1500 : 3000 + (i % 11) * 500,
}))
// A signed-in device: figures are kept only while someone is signed in.
beforeEach(() => {
  Cookies.set('refreshToken', 'r1', { path: '/' })
})

const buckets = bucketUsage(new TextEncoder().encode(JSON.stringify({ usages })), 2026)

it('keeps the hourly arrays packed, and a new start restores the same buckets', async () => {
  const first = await import('../../../src/lib/query-client.ts')
  const { usageKeys } = await import('../../../src/figures/year-query.ts')
  await first.restored
  first.queryClient.setQueryData(usageKeys.year(1, 2026), { buckets, etag: 'W/"1"' })
  // The persister writes about a second after the cache changes.
  await vi.waitFor(() => expect(localStorage.getItem('laundry-sales-cache')).toContain('W/\\"1\\"'), {
    timeout: 3000,
  })
  const text = localStorage.getItem('laundry-sales-cache') ?? ''
  const kept = JSON.parse(text).clientState.queries[0].state.data.buckets
  expect(typeof kept.hourSums).toBe('string')
  expect(typeof kept.hourCounts).toBe('string')
  expect(kept.total).toBe(buckets.total)

  // The next start of the app: fresh modules, the same local storage.
  vi.resetModules()
  const next = await import('../../../src/lib/query-client.ts')
  await next.restored
  const restored = next.queryClient.getQueryData<{ buckets: Buckets }>(usageKeys.year(1, 2026))
  expect(restored?.buckets).toEqual(buckets)
})

it('drops a damaged copy and restores the others', async () => {
  const first = await import('../../../src/lib/query-client.ts')
  const { usageKeys } = await import('../../../src/figures/year-query.ts')
  await first.restored
  first.queryClient.setQueryData(usageKeys.year(1, 2026), { buckets, etag: 'W/"1"' })
  first.queryClient.setQueryData(usageKeys.year(2, 2026), { buckets, etag: 'W/"2"' })
  await vi.waitFor(() => expect(localStorage.getItem('laundry-sales-cache')).toContain('W/\\"2\\"'), {
    timeout: 3000,
  })
  const kept = JSON.parse(localStorage.getItem('laundry-sales-cache') ?? '')
  const damaged = kept.clientState.queries.find((q: { queryKey: unknown[] }) => q.queryKey[1] === 2)
  damaged.state.data.buckets.hourSums = '500;!!'
  localStorage.setItem('laundry-sales-cache', JSON.stringify(kept))

  vi.resetModules()
  const next = await import('../../../src/lib/query-client.ts')
  await next.restored
  expect(next.queryClient.getQueryData<{ buckets: Buckets }>(usageKeys.year(1, 2026))?.buckets).toEqual(
    buckets,
  )
  expect(next.queryClient.getQueryData(usageKeys.year(2, 2026))).toBeUndefined()
})

it.each([
  ['not our shape', '{"kept":"figures"}'],
  ['not JSON', '{"clientState":'],
  ['queries that are not a list', '{"timestamp":1,"buster":"x","clientState":{"queries":7}}'],
])('a kept copy that is %s: the start restores nothing and does not fail', async (_, text) => {
  vi.resetModules()
  vi.spyOn(console, 'error').mockImplementation(() => {})
  localStorage.setItem('laundry-sales-cache', text)
  const start = await import('../../../src/lib/query-client.ts')
  await expect(start.restored).resolves.toBeUndefined()
  expect(start.queryClient.getQueryCache().getAll()).toHaveLength(0)
})

it('a save that the logout itself starts (clearing the cache) never writes the figures back', async () => {
  vi.resetModules()
  const { queryClient, restored } = await import('../../../src/lib/query-client.ts')
  const { usageKeys } = await import('../../../src/figures/year-query.ts')
  const { wipeDevice } = await import('../../../src/lib/session-state.ts')
  await restored
  queryClient.setQueryData(usageKeys.year(1, 2026), { buckets, etag: 'W/"1"' })
  queryClient.setQueryData(usageKeys.year(1, 2025), { buckets: { ...buckets, year: 2025 }, etag: 'W/"0"' })
  await vi.waitFor(() => expect(localStorage.getItem('laundry-sales-cache')).toContain('2025'), {
    timeout: 3000,
  })
  // The persister is idle again, so the save that clearing the cache starts runs at once.
  await new Promise((resolve) => setTimeout(resolve, 1100))
  await wipeDevice()
  await new Promise((resolve) => setTimeout(resolve, 0))
  expect(localStorage.getItem('laundry-sales-cache') ?? '').not.toContain('usage')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  expect(localStorage.getItem('laundry-sales-cache') ?? '').not.toContain('usage')
})
