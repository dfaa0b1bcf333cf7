// The owner's team (docs/product.md §15): the calls, who may use them, their bounds, the sign-in that
// uses an invite, and the log; every answer checked against the OpenAPI document.
import { describe, expect, it } from 'vitest'
import type { MembersAnswer, TeamLogAnswer } from '../../../contract/team.ts'
import { addStore, grant, revoke } from '../../../server/db/accounts.ts'
import { messages } from '../../../server/errors.ts'
import { checkEveryAnswer } from '../openapi-check.ts'
import { bearer, capturedSms, sharedTestApp, signIn, testClock } from '../test-app.ts'
import { call, phones, team } from './helpers.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
const sms = capturedSms()
let people: Awaited<ReturnType<typeof team>>
const current = sharedTestApp({
  clock,
  sms,
  setup: async (app) => {
    people = await team(app)
  },
})
const documentPath = (url: string) =>
  url
    .split('?')[0]
    ?.replace(/\/members\/(?!log$)[^/]+$/, '/members/{userId}')
    .replace(/\/invites\/[^/]+$/, '/invites/{inviteId}')
    .replace(/\/store\/[^/]+\//, '/store/{id}/') ?? url
const { seen, undeclared } = checkEveryAnswer(current, documentPath)

const store = () => `/store/${people.storeId}`
const invite = (payload: object, token = people.owner, storeId = people.storeId) =>
  call(current.app, 'POST', `/store/${storeId}/invites`, token, payload)
const members = async (token = people.owner) =>
  (await call(current.app, 'GET', `${store()}/members`, token)).json() as MembersAnswer
const log = async () =>
  ((await call(current.app, 'GET', `${store()}/members/log`, people.owner)).json() as TeamLogAnswer).entries
/** Settles the SMS outbox (it sends in the background). */
const sent = async () => {
  await new Promise((resolve) => setTimeout(resolve, 20))
  return sms.sent
}

describe('the team calls', () => {
  it('lists members (masked numbers, roles, money) and pending invites to owners only', async () => {
    const answer = await members()
    expect(answer.members.map((m) => `${m.name} ${m.role} ${m.phone} ${m.showsMoney}`)).toEqual([
      '김사장 owner *******5678 true',
      '박점장 manager *******3333 true',
      '이직원 staff *******4321 true',
    ])
    expect(answer.invites).toEqual([])
    for (const token of [people.manager, people.staff, people.stranger]) {
      const refused = await call(current.app, 'GET', `${store()}/members`, token)
      expect(refused.statusCode).toBe(403)
      expect(refused.json().message).toBe(messages.teamOwnerOnly)
    }
  })

  it('shows which alerts each member receives: their own settings, the defaults without any', async () => {
    const every = [
      'quiet',
      'deviceOffline',
      'machineError',
      'machineSilent',
      'paymentTerminal',
      'morningSummary',
    ]
    const changed = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/alerts/settings',
      headers: bearer(people.staff),
      payload: { storeId: people.storeId, quiet: false, morningSummary: false },
    })
    expect(changed.statusCode).toBe(200)
    const alerts = Object.fromEntries((await members()).members.map((m) => [m.name, m.alerts]))
    expect(alerts).toEqual({
      김사장: every,
      박점장: every,
      이직원: ['deviceOffline', 'machineError', 'machineSilent', 'paymentTerminal'],
    })
  })

  it('invites an unknown number with one SMS and no code; its next sign-in makes the store its own', async () => {
    const made = await invite({ phone: '010-9999-8888', role: 'staff', name: '최알바', showsMoney: false })
    expect(made.statusCode).toBe(201)
    expect(made.json()).toMatchObject({ phone: '*******8888', role: 'staff' })
    expect(made.json().expiresAt).toBe('2026-03-22T03:00:00.000Z')
    const texts = (await sent()).filter((m) => m.to === phones.newcomer).map((m) => m.text)
    expect(texts).toHaveLength(1)
    expect(texts[0]).toContain('역삼점 매출 앱에 초대되었습니다')
    expect(texts[0]).not.toContain('인증번호')
    expect((await members()).invites).toMatchObject([{ phone: '*******8888', role: 'staff' }])

    const tokens = await signIn(current.app, sms, phones.newcomer)
    const profile = await current.app.inject({
      method: 'GET',
      url: '/api/v0/user',
      headers: bearer(tokens.access),
    })
    expect(profile.json().user.name).toBe('최알바')
    expect(profile.json().stores).toEqual([
      { id: people.storeId, name: '역삼점', images: [], role: 'staff', showsMoney: false },
    ])
    const after = await members()
    expect(after.invites).toEqual([])
    const joined = after.members.find((m) => m.name === '최알바')
    expect(joined).toMatchObject({ role: 'staff', showsMoney: false, phone: '*******8888' })
    expect(joined?.invitedAt).toBe('2026-03-15T03:00:00.000Z')
    expect((await log()).slice(0, 2).map((l) => `${l.action} ${l.by} ${l.who} ${l.role}`)).toEqual([
      'joined null 최알바 staff',
      'invited 김사장 최알바 staff',
    ])
  })

  it('keeps an unknown number without an invite unknown: no SMS, no user, no sign-in', async () => {
    const asked = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      payload: { phone: phones.newcomer },
    })
    expect(asked.statusCode).toBe(200)
    expect(await sent()).toEqual([])
  })

  it('gives an invite only to its own number', async () => {
    await invite({ phone: phones.newcomer, role: 'manager' })
    // The stranger signs in: the store is not theirs.
    const tokens = await signIn(current.app, sms, phones.stranger)
    const profile = await current.app.inject({
      method: 'GET',
      url: '/api/v0/user',
      headers: bearer(tokens.access),
    })
    expect(profile.json().stores.map((s: { id: number }) => s.id)).toEqual([people.otherStoreId])
    expect((await members()).invites).toHaveLength(1)
  })

  it('refuses a member (409), a fourth pending invite of a number (429) and a 21st invite a day (429)', async () => {
    const member = await invite({ phone: phones.staff, role: 'manager' })
    expect(member.statusCode).toBe(409)
    expect(member.json().message).toBe(messages.alreadyMember)
    // Four stores of the owner invite one number: the fourth is refused while three are pending.
    const stores = [people.storeId]
    for (const name of ['선릉점', '삼성점', '강남점']) {
      const storeId = await addStore(current.app.db, { name })
      await grant(current.app.db, phones.owner, storeId, 'owner')
      stores.push(storeId)
    }
    for (const storeId of stores.slice(0, 3))
      expect(
        (await invite({ phone: phones.newcomer, role: 'staff' }, people.owner, storeId)).statusCode,
      ).toBe(201)
    // Inviting the number again to a store that has invited it replaces that invite: not a fourth.
    expect((await invite({ phone: phones.newcomer, role: 'manager' })).statusCode).toBe(201)
    const fourth = await invite({ phone: phones.newcomer, role: 'staff' }, people.owner, stores[3])
    expect(fourth.statusCode).toBe(429)
    expect(fourth.json().message).toBe(messages.tooManyInvitesForNumber)
    expect(Number(fourth.headers['retry-after'])).toBe(7 * 24 * 3600)
    // 4 invites taken of the owner's 20 a day; 16 more to other numbers, then a refusal.
    for (let n = 0; n < 16; n++) {
      const made = await invite({ phone: `0107000${String(n).padStart(4, '0')}`, role: 'staff' })
      expect(made.statusCode).toBe(201)
    }
    const tooMany = await invite({ phone: '01070009999', role: 'staff' })
    expect(tooMany.statusCode).toBe(429)
    expect(tooMany.json().message).toBe(messages.tooManyInvites)
    // Refused invites send nothing: 20 SMS for 20 invites.
    expect((await sent()).length).toBe(20)
    clock.advance(24 * 3600 * 1000 + 1000)
    const fresh = (await current.app.tokens.start(people.ids.owner)).access
    expect((await invite({ phone: '01070009999', role: 'staff' }, fresh)).statusCode).toBe(201)
  })

  it('refuses bad input with Korean 400s', async () => {
    for (const payload of [
      { phone: '12345', role: 'staff' },
      { phone: phones.newcomer, role: 'boss' },
      { phone: phones.newcomer, role: 'staff', name: '' },
      { phone: phones.newcomer, role: 'staff', showsMoney: 'yes please' },
      { phone: phones.newcomer, role: 'staff', extra: 1 },
      { phone: phones.newcomer },
    ]) {
      const refused = await invite(payload)
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400)
      expect(refused.json().message).toMatch(/[가-힣]/)
    }
    const patch = await call(current.app, 'PATCH', `${store()}/members/${people.ids.staff}`, people.owner, {
      role: 'king',
    })
    expect(patch.statusCode).toBe(400)
    expect(patch.json().message).toBe(messages.role)
    const unknown = await call(current.app, 'PATCH', `${store()}/members/999`, people.owner, {
      role: 'staff',
    })
    expect(unknown.statusCode).toBe(404)
  })
})

describe('who may change the team', () => {
  it('refuses a manager inviting or raising themselves, and staff', async () => {
    for (const token of [people.manager, people.staff]) {
      expect((await invite({ phone: phones.newcomer, role: 'owner' }, token)).statusCode).toBe(403)
      const raised = await call(current.app, 'PATCH', `${store()}/members/${people.ids.manager}`, token, {
        role: 'owner',
      })
      expect(raised.statusCode).toBe(403)
    }
    expect((await members()).members.find((m) => m.userId === people.ids.manager)?.role).toBe('manager')
    expect(await sent()).toEqual([])
  })

  it('refuses a manager removing or changing the owner, cancelling an invite or reading the log', async () => {
    const made = (await invite({ phone: phones.newcomer, role: 'staff' })).json()
    const ownerPath = `${store()}/members/${people.ids.owner}`
    for (const [method, url, payload] of [
      ['DELETE', ownerPath],
      ['PATCH', ownerPath, { role: 'staff' }],
      ['PATCH', `${store()}/members/${people.ids.staff}`, { showsMoney: false }],
      ['DELETE', `${store()}/invites/${made.id}`],
      ['GET', `${store()}/members/log`],
    ] as const) {
      const refused = await call(current.app, method, url, people.manager, payload)
      expect(refused.statusCode, `${method} ${url}`).toBe(403)
      expect(refused.json().message).toBe(messages.teamOwnerOnly)
    }
    expect((await members()).members.map((m) => `${m.name} ${m.role} ${m.showsMoney}`)).toEqual([
      '김사장 owner true',
      '박점장 manager true',
      '이직원 staff true',
    ])
    expect((await members()).invites).toHaveLength(1)
  })

  it('removes a member whatever body a client sends with the DELETE (it has none to read)', async () => {
    const staff = `${store()}/members/${people.ids.staff}`
    const removed = await call(current.app, 'DELETE', staff, people.owner, { reason: '퇴사', role: 'owner' })
    expect(removed.statusCode).toBe(204)
    expect((await members()).members.map((m) => m.name)).toEqual(['김사장', '박점장'])
  })

  it('keeps a store with at least one owner; an owner may leave when another stays', async () => {
    const me = `${store()}/members/${people.ids.owner}`
    const lowered = await call(current.app, 'PATCH', me, people.owner, { role: 'staff' })
    expect(lowered.statusCode).toBe(409)
    expect(lowered.json().message).toBe(messages.lastOwner)
    expect((await call(current.app, 'DELETE', me, people.owner)).statusCode).toBe(409)
    const raised = `${store()}/members/${people.ids.manager}`
    expect((await call(current.app, 'PATCH', raised, people.owner, { role: 'owner' })).statusCode).toBe(204)
    expect((await call(current.app, 'DELETE', me, people.owner)).statusCode).toBe(204)
    expect((await members(people.manager)).members.map((m) => m.name)).toEqual(['박점장', '이직원'])
  })

  it("changes a member's name and money setting, removes them, cancels an invite: each in the log", async () => {
    const staff = `${store()}/members/${people.ids.staff}`
    expect(
      (await call(current.app, 'PATCH', staff, people.owner, { name: ' 이알바 ', showsMoney: false }))
        .statusCode,
    ).toBe(204)
    expect((await members()).members.find((m) => m.userId === people.ids.staff)).toMatchObject({
      name: '이알바',
      showsMoney: false,
    })
    expect((await call(current.app, 'DELETE', staff, people.owner)).statusCode).toBe(204)
    expect((await call(current.app, 'DELETE', staff, people.owner)).statusCode).toBe(404)
    const made = (await invite({ phone: phones.newcomer, role: 'staff' })).json()
    const cancel = `${store()}/invites/${made.id}`
    expect((await call(current.app, 'DELETE', cancel, people.owner)).statusCode).toBe(204)
    expect((await call(current.app, 'DELETE', cancel, people.owner)).statusCode).toBe(404)
    expect(
      (await log()).slice(0, 4).map((l) => `${l.action} ${l.by} ${l.who} ${l.role} ${l.showsMoney}`),
    ).toEqual([
      'inviteCancelled 김사장 *******8888 null null',
      'invited 김사장 *******8888 staff true',
      'removed 김사장 이알바 null null',
      'changed 김사장 이알바 staff false',
    ])
  })

  it('writes the admin commands to the same log', async () => {
    await grant(current.app.db, phones.stranger, people.storeId, 'manager', clock.now())
    await revoke(current.app.db, phones.stranger, people.storeId, clock.now())
    expect((await log()).slice(0, 2).map((l) => `${l.action} ${l.by} ${l.who} ${l.role}`)).toEqual([
      'removed null 남 null',
      'joined null 남 manager',
    ])
  })
})

describe('the calls against the OpenAPI document', () => {
  it('declares every status met, with bodies that match it', () => {
    expect(undeclared).toEqual([])
    expect([...seen].filter((s) => / 5\d\d$/.test(s))).toEqual([])
  })
})
