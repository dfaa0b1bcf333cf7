import Cookies from 'js-cookie'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { endSession } from '../../../src/features/auth/session.ts'
import { recheckSession } from '../../../src/features/auth/session-check.ts'
import { usageKeys } from '../../../src/figures/year-query.ts'
import { onSessionEnded } from '../../../src/lib/api.ts'
import { keepTotals } from '../../../src/lib/kept-totals.ts'
import { page } from '../../../src/lib/page.ts'
import { queryClient, restored } from '../../../src/lib/query-client.ts'
import { useStoreStore, useUserStore, wipeDevice } from '../../../src/lib/session-state.ts'
import type { KeptTotals } from '../../../src/shell/kept-totals.ts'
import { keptTotalsKey } from '../../../src/shell/names.ts'
import { bucketUsage } from '../../../src/workers/bucket-exact.ts'
import { fakeServer, json, offline } from '../fake-server.ts'

const user = { id: 1, name: '김사장', phone: '01012345678', image: null }
const stores = [
  { id: 1, name: '역삼점', images: [] },
  { id: 2, name: '선릉점', images: [] },
  { id: 3, name: '대치점', images: [] },
]
let reload: ReturnType<typeof vi.spyOn>

beforeEach(() => {
  Cookies.set('accessToken', 'a1', { path: '/' })
  Cookies.set('refreshToken', 'r1', { path: '/' })
  useUserStore.setState({ user, isLoggedIn: true })
  useStoreStore.setState({ stores, store: stores[1] ?? null })
  reload = vi.spyOn(page, 'reload').mockImplementation(() => {})
  vi.spyOn(console, 'error').mockImplementation(() => {})
  onSessionEnded(() => void wipeDevice())
})

describe('the session on start', () => {
  it('fetches the profile again, and keeps the selected store while it is still there', async () => {
    fakeServer({ 'GET /api/v0/user': () => json(200, { user: { ...user, name: '김대표' }, stores }) })
    await recheckSession(endSession)
    expect(useUserStore.getState()).toMatchObject({ isLoggedIn: true, user: { name: '김대표' } })
    expect(useStoreStore.getState().store?.id).toBe(2)
  })

  it('selects the first store when the selected one is gone', async () => {
    fakeServer({ 'GET /api/v0/user': () => json(200, { user, stores: [stores[0], stores[2]] }) })
    await recheckSession(endSession)
    expect(useStoreStore.getState().store?.id).toBe(1)
    expect(useStoreStore.getState().stores).toHaveLength(2)
  })

  it('offline, keeps the session as it was', async () => {
    offline()
    await recheckSession(endSession)
    expect(useUserStore.getState().isLoggedIn).toBe(true)
    expect(useStoreStore.getState().store?.id).toBe(2)
    expect(Cookies.get('refreshToken')).toBe('r1')
    expect(reload).not.toHaveBeenCalled()
  })

  it('keeps the session when the server is in trouble (5xx)', async () => {
    fakeServer({ 'GET /api/v0/user': () => json(503, { message: '잠시 후 다시 시도해 주세요.' }) })
    await recheckSession(endSession)
    expect(useUserStore.getState().isLoggedIn).toBe(true)
  })

  it('logs out when the sign-in is gone: flag cleared, tokens and stored state removed', async () => {
    fakeServer({
      'GET /api/v0/user': () => json(401, { message: '로그인이 만료되었습니다.' }),
      'GET /api/v0/user/sign': () => json(401, { message: '로그인 정보가 올바르지 않습니다.' }),
    })
    await recheckSession(endSession)
    await vi.waitFor(() => expect(useUserStore.getState().isLoggedIn).toBe(false))
    expect(Cookies.get('accessToken')).toBeUndefined()
    expect(Cookies.get('refreshToken')).toBeUndefined()
    expect(localStorage.getItem('user-sotre')).toBeNull()
    expect(localStorage.getItem('store-store')).toBeNull()
  })

  it('logs out and reloads when the user has no stores left', async () => {
    fakeServer({ 'GET /api/v0/user': () => json(200, { user, stores: [] }) })
    await recheckSession(endSession)
    expect(useUserStore.getState().isLoggedIn).toBe(false)
    expect(Cookies.get('refreshToken')).toBeUndefined()
    expect(reload).toHaveBeenCalledTimes(1)
  })

  it('reloads when the profile answer is empty', async () => {
    fakeServer({ 'GET /api/v0/user': () => new Response(null, { status: 200 }) })
    await recheckSession(endSession)
    expect(reload).toHaveBeenCalledTimes(1)
  })

  it('forgets what the device keeps of a store the profile no longer lists: its figures and kept totals', async () => {
    await restored
    const buckets = bucketUsage(new TextEncoder().encode('{"usages":[]}'), 2026)
    for (const id of [1, 2, 3])
      queryClient.setQueryData(usageKeys.year(id, 2026), { buckets, etag: `W/"${id}"` })
    const totals = (storeId: number): KeptTotals => ({
      storeId,
      year: 2026,
      month: 11,
      storeName: '선릉점',
      yearLabel: '2026년 매출',
      yearTotal: '1원',
      monthLabel: '11월 매출',
      monthTotal: '1원',
      asOf: '11월 24일 23:05 기준',
    })
    keepTotals(totals(2))
    const kept = () => localStorage.getItem('laundry-sales-cache') ?? ''
    await vi.waitFor(() => expect(kept()).toContain('W/\\"3\\"'), { timeout: 3000 })
    // The owner's access to 선릉점 (2) was revoked.
    fakeServer({ 'GET /api/v0/user': () => json(200, { user, stores: [stores[0], stores[2]] }) })
    await recheckSession(endSession)
    expect(localStorage.getItem(keptTotalsKey)).toBeNull()
    await vi.waitFor(() => expect(queryClient.getQueryData(usageKeys.year(2, 2026))).toBeUndefined())
    expect(queryClient.getQueryData(usageKeys.year(1, 2026))).toBeDefined()
    await vi.waitFor(() => expect(kept()).not.toContain('W/\\"2\\"'), { timeout: 3000 })
    expect(kept()).toContain('W/\\"1\\"')
    expect(kept()).toContain('W/\\"3\\"')
    // A store still listed keeps its totals.
    keepTotals(totals(3))
    await recheckSession(endSession)
    expect(localStorage.getItem(keptTotalsKey)).not.toBeNull()
    queryClient.clear()
  })
})
