// A member removed while their screen is open (docs/product.md §15): the next answer about the store is
// a 403, the profile asked again no longer lists it, the device forgets the store's kept figures and
// totals, and the screen returns to the store list with a Korean notice. A 403 of another kind (money
// hidden from staff) changes nothing; a user left with no store is signed out.
import { screen } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { storeLostNotice } from '../../../src/features/auth/store-lost.ts'
import { usageKeys } from '../../../src/figures/year-query.ts'
import { clearProblem } from '../../../src/lib/problem.ts'
import { queryClient as keptClient, restored } from '../../../src/lib/query-client.ts'
import { useStoreStore } from '../../../src/lib/session-state.ts'
import { keptTotalsKey } from '../../../src/shell/names.ts'
import { owner, signedIn, startAt } from '../app-at.tsx'
import { fakeServer, json } from '../fake-server.ts'

const stores = [
  { id: 1, name: '역삼점', images: [], role: 'owner' as const },
  { id: 2, name: '선릉점', images: [], role: 'staff' as const },
]

const refused = (message: string) => () => json(403, { message })

beforeEach(async () => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
  await restored
  keptClient.clear()
  clearProblem()
})

/** Figures and totals of store 2 kept on the device, as a visit before the removal left them. */
function keptOfStore2() {
  keptClient.setQueryData(usageKeys.year(2, 2025), { buckets: {}, etag: null })
  keptClient.setQueryData(usageKeys.year(1, 2025), { buckets: {}, etag: null })
  localStorage.setItem(keptTotalsKey, JSON.stringify({ storeId: 2 }))
}

describe('a store taken from the user while the app runs', () => {
  it('is forgotten at its next refused answer, and the screen returns to the store list with a notice', async () => {
    signedIn(stores)
    keptOfStore2()
    useStoreStore.setState({ store: stores[1] ?? null })
    fakeServer({
      'GET /api/v0/store/2/usage': refused('이 매장을 볼 권한이 없습니다.'),
      'GET /api/v0/store/1/usage': () => json(200, { usages: [] }),
      'GET /api/v0/user': () => json(200, { user: owner, stores: [stores[0]] }),
    })
    const { router } = startAt('/?store=2&year=2025&month=6')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/stores'))
    expect(await screen.findByRole('alert')).toHaveTextContent(storeLostNotice('선릉점'))
    expect(useStoreStore.getState().stores.map((store) => store.id)).toEqual([1])
    expect(useStoreStore.getState().store?.id).toBe(1)
    await vi.waitFor(() => expect(keptClient.getQueryData(usageKeys.year(2, 2025))).toBeUndefined())
    expect(keptClient.getQueryData(usageKeys.year(1, 2025))).toBeDefined()
    expect(localStorage.getItem(keptTotalsKey)).toBeNull()
  })

  it('stays when the store is still the user’s (a refusal of another kind: money hidden)', async () => {
    signedIn(stores)
    keptOfStore2()
    useStoreStore.setState({ store: stores[1] ?? null })
    const calls = fakeServer({
      'GET /api/v0/store/2/usage': refused('매장 주인이 이 매장의 금액을 보지 않도록 설정했습니다.'),
      'GET /api/v0/user': () => json(200, { user: owner, stores }),
    })
    const { router } = startAt('/?store=2&year=2025&month=6')
    await vi.waitFor(() => expect(calls.count('GET /api/v0/user')).toBe(1))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(router.state.location.pathname).toBe('/')
    expect(useStoreStore.getState().stores).toHaveLength(2)
    expect(keptClient.getQueryData(usageKeys.year(2, 2025))).toBeDefined()
    expect(screen.queryByText(storeLostNotice('선릉점'))).toBeNull()
  })

  it('signs out a user left with no store', async () => {
    signedIn([stores[1] as (typeof stores)[1]])
    fakeServer({
      'GET /api/v0/store/2/usage': refused('이 매장을 볼 권한이 없습니다.'),
      'GET /api/v0/user': () => json(200, { user: owner, stores: [] }),
    })
    startAt('/?store=2&year=2025&month=6')
    await vi.waitFor(() => expect(useStoreStore.getState().stores).toEqual([]))
    expect(keptClient.getQueryData(usageKeys.year(2, 2025))).toBeUndefined()
  })
})
