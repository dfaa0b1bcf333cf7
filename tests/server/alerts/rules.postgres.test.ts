// The alert rules on two instances of the app on one PostgreSQL, evaluating at the same time: each
// alert is pushed once (the quiet alert, its resume, the held alerts when quiet hours end, the morning
// summary, a devices' outage and its return), and the caps hold across instances (the user's advisory
// lock, not memory).
import { sql } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { caps } from '../../../server/alerts/record.ts'
import { addStore } from '../../../server/db/accounts.ts'
import { pairedDevice } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { bearer, resetDatabase, type TestApp, testClock, twoInstances } from '../test-app.ts'
import { pushEnv, quietReadyStore, sale } from './helpers.ts'

const clock = testClock('2026-03-16T05:00:00.000Z')
const fakeOne = fakeTransport()
const fakeTwo = fakeTransport()
let one: TestApp
let two: TestApp
let people: Awaited<ReturnType<typeof quietReadyStore>>

twoInstances(
  {
    clock,
    env: pushEnv,
    pushTransport: () => fakeOne.transport,
    second: { pushTransport: () => fakeTwo.transport },
  },
  (apps) => {
    one = apps.one
    two = apps.two
  },
)
beforeEach(async () => {
  clock.set()
  fakeOne.clear()
  fakeTwo.clear()
  await resetDatabase(one)
  people = await quietReadyStore(one, '2026-03-16T02:00:00.000Z')
})

/** Both instances evaluate, three times each, all at once; the pushes both made since the last call. */
async function evaluateOnBoth() {
  await Promise.all([one, two, one, two, one, two].map((app) => app.alertRules.evaluate(clock.now())))
  const sent = [...fakeOne.sent, ...fakeTwo.sent].map(
    (request) => JSON.parse(request.payload) as { title: string; body: string; tag: string },
  )
  fakeOne.clear()
  fakeTwo.clear()
  return sent
}

describe('two instances on one PostgreSQL', () => {
  it('push a quiet alert once, and its resume once', async () => {
    const quiet = await evaluateOnBoth()
    expect(quiet.map((message) => message.title)).toEqual(['역삼점 · 판매 없음'])
    clock.advance(60_000)
    expect(await evaluateOnBoth()).toEqual([])
    clock.set('2026-03-16T05:31:00.000Z')
    await sale(one, people.storeId, '2026-03-16T05:30:00.000Z')
    const resumed = await evaluateOnBoth()
    expect(resumed).toEqual([
      expect.objectContaining({ tag: quiet[0]?.tag, body: '다시 판매 시작 · 14:30 (3시간 40분 무판매)' }),
    ])
    clock.advance(60_000)
    expect(await evaluateOnBoth()).toEqual([])
  })

  it('push a store outage once (one outage row), and its return once', async () => {
    const { deviceId } = await pairedDevice(one, people.storeId, people.owner, '카운터 옆 결제기')
    await one.inject({
      method: 'PUT',
      url: '/api/v0/alerts/settings',
      headers: bearer(people.owner),
      payload: { storeId: people.storeId, quiet: false },
    })
    const seen = (at: string) =>
      one.db.execute(
        sql`update devices set last_seen_at = ${at}::timestamptz, pending = 0 where id = ${deviceId}`,
      )
    await seen('2026-03-16T04:50:00Z')
    clock.set('2026-03-16T04:55:00.000Z')
    expect(await evaluateOnBoth()).toEqual([])
    clock.set('2026-03-16T05:00:00.000Z')
    const down = await evaluateOnBoth()
    expect(down.map((message) => message.title)).toEqual(['역삼점 · 단말기 연결 끊김'])
    clock.advance(60_000)
    expect(await evaluateOnBoth()).toEqual([])
    await seen('2026-03-16T05:10:30Z')
    clock.set('2026-03-16T05:11:00.000Z')
    expect(await evaluateOnBoth()).toEqual([
      expect.objectContaining({
        tag: down[0]?.tag,
        body: '다시 연결됨 · 14:11 (21분 끊김) · 밀린 판매 없음',
      }),
    ])
    clock.advance(60_000)
    expect(await evaluateOnBoth()).toEqual([])
    const outages = await one.db.execute(sql`select since, ended_at from device_outages`)
    expect((outages as unknown as { rows: unknown[] }).rows).toHaveLength(1)
  })

  it('keep the caps: of 8 stores gone quiet at once, 6 alerts in all', async () => {
    const owner = await one.db.execute(
      sql`select user_id from memberships where store_id = ${people.storeId} and role = 'owner'`,
    )
    const ownerId = Number((owner as unknown as { rows: { user_id: number }[] }).rows[0]?.user_id)
    for (let n = 0; n < 7; n++) {
      const storeId = await addStore(one.db, { name: `지점${n}` })
      await one.db.execute(
        sql`insert into memberships (user_id, store_id, role) values (${ownerId}, ${storeId}, 'owner')`,
      )
      await one.db.execute(sql`insert into usages (store_id, created_at, amount)
        select ${storeId}, created_at, amount from usages where store_id = ${people.storeId}`)
    }
    const sent = await evaluateOnBoth()
    expect(sent).toHaveLength(caps.all)
    expect(new Set(sent.map((message) => message.tag)).size).toBe(caps.all)
  })

  it('push held alerts once when quiet hours end, and the morning summary once', async () => {
    await one.inject({
      method: 'PUT',
      url: '/api/v0/alerts/settings',
      headers: bearer(people.owner),
      payload: { storeId: people.storeId, quietHours: { start: '13:00', end: '15:00' } },
    })
    expect(await evaluateOnBoth()).toEqual([])
    clock.set('2026-03-16T06:00:00.000Z')
    expect((await evaluateOnBoth()).map((message) => message.title)).toEqual(['역삼점 · 판매 없음'])
    expect(await evaluateOnBoth()).toEqual([])
    clock.set('2026-03-17T00:05:00.000Z')
    expect((await evaluateOnBoth()).map((message) => message.tag)).toEqual(['summary:2026-03-16'])
    expect(await evaluateOnBoth()).toEqual([])
  })
})
