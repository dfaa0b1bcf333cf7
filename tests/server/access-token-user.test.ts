import { decodeJwt, SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { addUser } from '../../server/db/accounts.ts'
import { bearer, capturedSms, sharedTestApp, signIn } from './test-app.ts'

// An access token names its user (`sub`) and its sign-in (`sid`); both must agree with the database.
const owner = '01012345678'
const staff = '01022223333'
const sms = capturedSms()
const current = sharedTestApp({
  sms,
  env: { JWT_SECRET: 'test-secret-test-secret-test-secret-0123' },
  setup: async (app) => {
    await addUser(app.db, { phone: owner, name: '김사장' })
    await addUser(app.db, { phone: staff, name: '이직원' })
  },
})

const secret = new TextEncoder().encode('test-secret-test-secret-test-secret-0123')

describe('an access token', () => {
  it("is refused when its sign-in is live but another user's", async () => {
    const { access } = await signIn(current.app, sms, owner)
    const { sub, sid } = decodeJwt(access)
    const staffId = Number(sub) + 1
    const now = Math.floor(Date.now() / 1000)
    // Signed with the server's secret: only the pairing of user and sign-in is wrong.
    const mismatched = await new SignJWT({ sid })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(staffId))
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(secret)
    const profile = await current.app.inject({
      method: 'GET',
      url: '/api/v0/user',
      headers: bearer(mismatched),
    })
    expect(profile.statusCode).toBe(401)
    expect(profile.json()).toEqual({ message: '로그인이 만료되었습니다. 다시 로그인해 주세요.' })
    // The sign-in itself is untouched: its own token still works.
    const own = await current.app.inject({ method: 'GET', url: '/api/v0/user', headers: bearer(access) })
    expect(own.statusCode).toBe(200)
    expect(own.json().user.phone).toBe(owner)
    // And once more after the owner's token put the sign-in's state in memory.
    const again = await current.app.inject({
      method: 'GET',
      url: '/api/v0/user',
      headers: bearer(mismatched),
    })
    expect(again.statusCode).toBe(401)
  })
})
