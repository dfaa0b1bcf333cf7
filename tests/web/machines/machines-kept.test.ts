// A store's machines are kept on the device with its figures (their key is a usage key), so the
// last-known machines show offline; a new start restores them as they were, and a store no longer
// listed forgets them with its figures.
import Cookies from 'js-cookie'
import { beforeEach, expect, it, vi } from 'vitest'
import type { MachinesAnswer } from '../../../contract/machines.ts'

beforeEach(() => {
  Cookies.set('refreshToken', 'r1', { path: '/' })
})

const answer: MachinesAnswer = {
  at: '2026-11-25T09:00:00.000Z',
  machines: [
    {
      machine: 'W3',
      name: '창가 세탁기',
      kind: 'washer',
      state: 'error',
      stateSince: '2026-11-25T08:00:00.000Z',
      code: 'E21',
      lastSaleAt: '2026-11-25T07:00:00.000Z',
      month: { sum: 12_000, count: 3 },
      today: { sum: 4_000, count: 1 },
      refunds: { sum: 0, count: 0 },
    },
  ],
  methods: [{ method: 'card', sum: 12_000, count: 3 }],
  refunds: { sum: 0, count: 0 },
}

it('keeps the machines of a month, restores them on the next start, and forgets those of a store no longer listed', async () => {
  vi.resetModules()
  const first = await import('../../../src/lib/query-client.ts')
  const { usageKeys } = await import('../../../src/lib/usage-keys.ts')
  await first.restored
  first.queryClient.setQueryData(usageKeys.machines(1, 2026, 11), answer)
  first.queryClient.setQueryData(usageKeys.machines(2, 2026, 11), answer)
  await vi.waitFor(() => expect(localStorage.getItem('laundry-sales-cache')).toContain('창가 세탁기'), {
    timeout: 3000,
  })
  vi.resetModules()
  const next = await import('../../../src/lib/query-client.ts')
  await next.restored
  expect(next.queryClient.getQueryData(usageKeys.machines(1, 2026, 11))).toEqual(answer)
  await next.forgetStoresBut([1])
  expect(next.queryClient.getQueryData(usageKeys.machines(2, 2026, 11))).toBeUndefined()
  expect(next.queryClient.getQueryData(usageKeys.machines(1, 2026, 11))).toEqual(answer)
})

it("forgets a store's kept year and machines when the owner hides its won amounts, and keeps the others' (§15)", async () => {
  vi.resetModules()
  const { queryClient, restored, forgetStoresBut } = await import('../../../src/lib/query-client.ts')
  const { usageKeys } = await import('../../../src/lib/usage-keys.ts')
  await restored
  for (const store of [1, 2]) {
    queryClient.setQueryData(usageKeys.machines(store, 2026, 11), answer)
    queryClient.setQueryData(usageKeys.year(store, 2026), { buckets: {}, etag: null })
  }
  await forgetStoresBut([1, 2], [2])
  expect(queryClient.getQueryData(usageKeys.year(1, 2026))).toBeUndefined()
  expect(queryClient.getQueryData(usageKeys.machines(1, 2026, 11))).toBeUndefined()
  expect(queryClient.getQueryData(usageKeys.year(2, 2026))).toEqual({ buckets: {}, etag: null })
  expect(queryClient.getQueryData(usageKeys.machines(2, 2026, 11))).toEqual(answer)
  await vi.waitFor(() => expect(localStorage.getItem('laundry-sales-cache')).not.toContain('"usage",1,'), {
    timeout: 3000,
  })
})
