import { describe, expect, it } from 'vitest'
import { storeSignInOpens } from '../../../contract/opened-store.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { usages } from '../../../server/db/schema.ts'
import { bearer, capturedSms, sharedTestApp, signIn, type TestApp, testClock } from '../test-app.ts'

const owner = '01012345678'
const staff = '01022223333'
const nobody = '01000000000'
const clock = testClock()
const sms = capturedSms()

async function setup(app: TestApp) {
  await addUser(app.db, { phone: owner, name: '김사장', image: 'users/1.png' })
  await addUser(app.db, { phone: staff, name: '이직원' })
  await addUser(app.db, { phone: nobody, name: '박손님' })
  const yeoksam = await addStore(app.db, { name: '역삼점', images: ['stores/1-1.png', 'stores/1-2.png'] })
  const seolleung = await addStore(app.db, { name: '선릉점' })
  await grant(app.db, owner, yeoksam, 'owner')
  await grant(app.db, owner, seolleung, 'owner')
  await grant(app.db, staff, seolleung, 'staff')
  await app.db.insert(usages).values([
    { storeId: yeoksam, createdAt: new Date('2025-12-31T23:59:59.999Z'), amount: 1000 },
    { storeId: yeoksam, createdAt: new Date('2026-01-01T00:00:00.000Z'), amount: 4000 },
    { storeId: yeoksam, createdAt: new Date('2026-03-01T09:15:00.000Z'), amount: 5000 },
    { storeId: yeoksam, createdAt: new Date('2026-02-28T10:00:00.500Z'), amount: 3000 },
    { storeId: yeoksam, createdAt: new Date('2026-12-31T23:59:59.999Z'), amount: 8000 },
    { storeId: yeoksam, createdAt: new Date('2027-01-01T00:00:00.000Z'), amount: 2000 },
    { storeId: seolleung, createdAt: new Date('2026-05-05T05:05:05.005Z'), amount: 7000 },
  ])
}

const current = sharedTestApp({ clock, sms, setup })
const get = (url: string, access?: string) =>
  current.app.inject({ method: 'GET', url, headers: access ? bearer(access) : {} })

describe('GET /api/v0/user', () => {
  it('answers the user and the stores they may see, the first being the one selected at sign-in', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const response = await get('/api/v0/user', access)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      user: { id: 1, name: '김사장', phone: owner, image: 'users/1.png' },
      stores: [
        { id: 1, name: '역삼점', images: ['stores/1-1.png', 'stores/1-2.png'], role: 'owner' },
        { id: 2, name: '선릉점', images: [], role: 'owner' },
      ],
    })
  })

  it("names the profile's first store in the sign-in answer, so the app can ask for its figures at once", async () => {
    const sign = async (phone: string) => {
      await current.app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone } })
      const signed = await current.app.inject({
        method: 'POST',
        url: '/api/v0/user/sign',
        payload: { phone, code: sms.lastCode(phone) },
      })
      const answer = signed.json()
      const profile = (await get('/api/v0/user', answer.token.access)).json()
      return { answer, profile }
    }
    for (const phone of [owner, staff]) {
      const { answer, profile } = await sign(phone)
      expect(answer.firstStoreId).toBe(profile.stores[0].id)
      // The rule the app runs on the same profile (contract/opened-store.ts).
      expect(answer.firstStoreId).toBe(storeSignInOpens<{ id: number }>(profile.stores)?.id)
    }
    expect((await sign(staff)).answer.firstStoreId).toBe(2)
    // No store, no name: the answer is the contract's token alone.
    expect(Object.keys((await sign(nobody)).answer)).toEqual(['token'])
  })

  it("says the user's role in each store (our addition: only an owner manages its devices)", async () => {
    const { access } = await signIn(current.app, sms, staff)
    expect((await get('/api/v0/user', access)).json().stores).toEqual([
      { id: 2, name: '선릉점', images: [], role: 'staff' },
    ])
  })

  it('answers a user with no stores with an empty list (the app refuses them)', async () => {
    const { access } = await signIn(current.app, sms, nobody)
    expect((await get('/api/v0/user', access)).json().stores).toEqual([])
  })
})

describe('GET /api/v0/store/:id/usage', () => {
  it("answers the records of the store's UTC year, oldest first, in ISO 8601 with Z", async () => {
    const { access } = await signIn(current.app, sms, owner)
    const response = await get('/api/v0/store/1/usage?year=2026', access)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(response.json()).toEqual({
      usages: [
        { createdAt: '2026-01-01T00:00:00.000Z', amount: 4000 },
        { createdAt: '2026-02-28T10:00:00.500Z', amount: 3000 },
        { createdAt: '2026-03-01T09:15:00.000Z', amount: 5000 },
        { createdAt: '2026-12-31T23:59:59.999Z', amount: 8000 },
      ],
    })
  })

  it('answers an empty list for a year without records', async () => {
    const { access } = await signIn(current.app, sms, owner)
    expect((await get('/api/v0/store/1/usage?year=2020', access)).json()).toEqual({ usages: [] })
  })

  it('lets staff see the store they belong to', async () => {
    const { access } = await signIn(current.app, sms, staff)
    const response = await get('/api/v0/store/2/usage?year=2026', access)
    expect(response.json()).toEqual({ usages: [{ createdAt: '2026-05-05T05:05:05.005Z', amount: 7000 }] })
  })

  it('answers 403 for a store the user is not a member of, and the same for a store that does not exist', async () => {
    const { access } = await signIn(current.app, sms, staff)
    const foreign = await get('/api/v0/store/1/usage?year=2026', access)
    const missing = await get('/api/v0/store/999/usage?year=2026', access)
    expect(foreign.statusCode).toBe(403)
    expect(missing.statusCode).toBe(403)
    expect(foreign.json()).toEqual({ message: '이 매장의 매출을 볼 권한이 없습니다.' })
    expect(missing.json()).toEqual(foreign.json())
  })

  it('answers 401 without a token', async () => {
    const response = await get('/api/v0/store/1/usage?year=2026')
    expect(response.statusCode).toBe(401)
    expect(response.json().message).toBe('로그인이 필요합니다.')
  })

  it.each([
    ['no year', '/api/v0/store/1/usage', '조회할 연도가 올바르지 않습니다.'],
    ['a year that is not a number', '/api/v0/store/1/usage?year=abc', '조회할 연도가 올바르지 않습니다.'],
    ['a year out of range', '/api/v0/store/1/usage?year=99999', '조회할 연도가 올바르지 않습니다.'],
    [
      'a store id that is not a number',
      '/api/v0/store/abc/usage?year=2026',
      '매장 번호가 올바르지 않습니다.',
    ],
    ['a store id of zero', '/api/v0/store/0/usage?year=2026', '매장 번호가 올바르지 않습니다.'],
    [
      'a store id too large for the database',
      '/api/v0/store/99999999999/usage?year=2026',
      '매장 번호가 올바르지 않습니다.',
    ],
  ])('answers 400 with a Korean message for %s', async (_, url, message) => {
    const { access } = await signIn(current.app, sms, owner)
    const response = await get(url, access)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({ message })
  })
})
