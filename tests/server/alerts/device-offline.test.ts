// The devices' outage (server/alerts/outages.ts, device-offline.ts, device-return.ts; decisions 180–183)
// with a fake push transport and a test clock: pushed after each member's own minutes, one push a
// store outage, the return replacing it (with the queued sales, in quiet hours too), three outages
// within an hour as one `연결이 불안정합니다` alert, and no quiet alert for the span the devices were away.
import { sql } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { flappingOf, type Outage, outageChange } from '../../../server/alerts/outages.ts'
import { pairedDevice } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { bearer, sharedTestApp, testClock } from '../test-app.ts'
import { alertRows, pushEnv, quietReadyStore, subscribe } from './helpers.ts'

// Monday 16 March 2026; the store's last sale was at 01:50 UTC (10:50 KST).
const clock = testClock('2026-03-16T04:00:00.000Z')
const fake = fakeTransport()
const current = sharedTestApp({ clock, env: pushEnv, pushTransport: () => fake.transport })
let people: Awaited<ReturnType<typeof quietReadyStore>>
let deviceId: number

beforeEach(async () => {
  clock.set()
  fake.clear()
  people = await quietReadyStore(current.app, '2026-03-16T02:00:00.000Z')
  deviceId = (await pairedDevice(current.app, people.storeId, people.owner, '카운터 옆 결제기')).deviceId
})

const at = (instant: string) => {
  clock.set(instant)
  return current.app.alertRules.evaluate(clock.now())
}
const seen = (instant: string, pending = 0, id = deviceId) =>
  current.app.db.execute(
    sql`update devices set last_seen_at = ${instant}::timestamptz, pending = ${pending} where id = ${id}`,
  )
/** What was pushed, without the store (every one of these names the test's store). */
const pushed = () =>
  fake.sent.map((request) => {
    const { title, body, tag } = JSON.parse(request.payload) as { title: string; body: string; tag: string }
    return { title, body, tag }
  })
const devicePushes = () => pushed().filter((message) => message.tag.startsWith('device:'))
const settings = (access: string, payload: Record<string, unknown>) =>
  current.app.inject({
    method: 'PUT',
    url: '/api/v0/alerts/settings',
    headers: bearer(access),
    payload: { storeId: people.storeId, ...payload },
  })

describe('a store outage', () => {
  it('is recorded for each member after their own minutes, once, however many devices drop in it', async () => {
    await subscribe(current.app, people.staff, 'staff')
    expect((await settings(people.owner, { deviceOfflineMinutes: 5, quiet: false })).statusCode).toBe(200)
    await settings(people.staff, { quiet: false })
    await seen('2026-03-16T03:50:00Z')
    const other = await pairedDevice(current.app, people.storeId, people.owner, '동전 교환기')
    await seen('2026-03-16T03:59:30Z', 0, other.deviceId)
    await at('2026-03-16T03:54:30.000Z') // offline in the app: 4.5 min
    expect(fake.sent).toHaveLength(0)
    await at('2026-03-16T03:55:00.000Z') // the owner's 5 minutes
    expect(devicePushes()).toEqual([
      {
        title: '역삼점 · 단말기 연결 끊김',
        body: '‘카운터 옆 결제기’가 12:50부터 응답하지 않습니다.',
        tag: `device:${people.storeId}:store:2026-03-16T03:50:00.000Z`,
      },
    ])
    // The other device drops too: the same outage, no second alert; the staff member's 10 minutes.
    await at('2026-03-16T03:59:00.000Z')
    expect(fake.sent).toHaveLength(1)
    await at('2026-03-16T04:03:00.000Z')
    expect(fake.sent).toHaveLength(2)
    expect(devicePushes()[1]).toEqual(
      expect.objectContaining({ body: '단말기 2대 모두 12:59부터 응답하지 않습니다.' }),
    )
    await at('2026-03-16T04:20:00.000Z')
    expect(fake.sent).toHaveLength(2)
    expect((await alertRows(current.app)).map((row) => row.episode)).toEqual([
      'store:2026-03-16T03:50:00.000Z',
      'store:2026-03-16T03:50:00.000Z',
    ])
  })

  it('back within the minutes: nothing pushed', async () => {
    await settings(people.owner, { quiet: false })
    await seen('2026-03-16T03:50:00Z')
    await at('2026-03-16T03:55:00.000Z')
    await seen('2026-03-16T03:59:00Z')
    await at('2026-03-16T03:59:30.000Z')
    await seen('2026-03-16T04:09:00Z')
    await at('2026-03-16T04:10:00.000Z')
    expect(fake.sent).toHaveLength(0)
  })

  it('back: the pushed alert is replaced under its tag, in quiet hours too, with the queued sales, once the queue is empty', async () => {
    await settings(people.owner, { quiet: false })
    await seen('2026-03-16T03:50:00Z')
    await at('2026-03-16T03:55:00.000Z')
    await at('2026-03-16T04:00:00.000Z')
    const [alert] = devicePushes()
    expect(alert?.title).toBe('역삼점 · 단말기 연결 끊김')
    await settings(people.owner, { quietHours: { start: '13:05', end: '15:00' } })
    // Back at 04:20 with 3 sales queued (made in the span) and still 1 in its queue; a sale of another source not counted.
    await seen('2026-03-16T04:19:40Z', 1)
    await current.app.db.execute(sql`insert into usages (store_id, created_at, amount, device_id, device_sale_id)
      values (${people.storeId}, '2026-03-16T03:55:00Z', 3000, ${deviceId}, 'q1'),
             (${people.storeId}, '2026-03-16T04:05:00Z', 4000, ${deviceId}, 'q2'),
             (${people.storeId}, '2026-03-16T04:15:00Z', 3000, ${deviceId}, 'q3')`)
    await current.app.db.execute(
      sql`insert into usages (store_id, created_at, amount) values (${people.storeId}, '2026-03-16T04:10:00Z', 5000)`,
    )
    await at('2026-03-16T04:20:00.000Z')
    expect(fake.sent).toHaveLength(1) // its queue not empty yet
    await seen('2026-03-16T04:20:40Z', 0)
    const report = await at('2026-03-16T04:21:00.000Z')
    expect(report.resumed).toBe(2) // the owner's and the staff member's
    expect(devicePushes()[1]).toEqual({
      title: '역삼점 · 단말기 다시 연결됨',
      body: '다시 연결됨 · 13:20 (30분 끊김) · 밀린 판매 3건 받음',
      tag: alert?.tag,
    })
    await at('2026-03-16T04:30:00.000Z')
    expect(fake.sent).toHaveLength(2)
  })

  it('back with its queue not said empty: replaced 5 minutes after, none for a member who turned it off', async () => {
    await settings(people.owner, { quiet: false })
    await subscribe(current.app, people.staff, 'staff')
    await seen('2026-03-16T03:50:00Z')
    await at('2026-03-16T03:55:00.000Z')
    await at('2026-03-16T04:00:00.000Z')
    expect(fake.sent).toHaveLength(2)
    await settings(people.staff, { deviceOffline: false, quiet: false })
    await seen('2026-03-16T04:04:30Z', 2)
    await at('2026-03-16T04:05:00.000Z')
    await seen('2026-03-16T04:08:30Z', 2)
    await at('2026-03-16T04:09:00.000Z')
    expect(fake.sent).toHaveLength(2)
    await at('2026-03-16T04:10:00.000Z')
    expect(devicePushes().slice(2)).toEqual([
      expect.objectContaining({ body: '다시 연결됨 · 13:05 (15분 끊김) · 밀린 판매 없음' }),
    ])
  })
})

describe('a flapping store', () => {
  /** An outage from `from` (the last heartbeat), seen by the rules after 4 minutes and after `minutes`, back then. */
  async function drop(from: string, minutes: number) {
    const start = Date.parse(from)
    const iso = (ms: number) => new Date(start + ms).toISOString()
    await seen(from)
    await at(iso(4 * 60_000))
    await at(iso(minutes * 60_000))
    await seen(iso(minutes * 60_000 + 10_000))
    await at(iso(minutes * 60_000 + 30_000))
  }

  it('three outages within an hour, short ones too: one 연결이 불안정합니다 alert, at once, instead of one each', async () => {
    await settings(people.owner, { quiet: false })
    await drop('2026-03-16T03:00:00Z', 12) // pushed at 10 minutes, then replaced
    expect(devicePushes().map((message) => message.title)).toEqual([
      '역삼점 · 단말기 연결 끊김',
      '역삼점 · 단말기 다시 연결됨',
    ])
    await drop('2026-03-16T03:20:00Z', 6) // short: nothing
    expect(fake.sent).toHaveLength(2)
    await seen('2026-03-16T03:40:00Z')
    await at('2026-03-16T03:44:00.000Z') // the third: at once
    expect(devicePushes()[2]).toEqual({
      title: '역삼점 · 연결이 불안정합니다',
      body: '최근 1시간 동안 단말기 연결이 3번 끊겼습니다. 전원과 인터넷 연결을 확인해 주세요.',
      tag: `device:${people.storeId}:unstable:2026-03-16T03:00:00.000Z`,
    })
    await at('2026-03-16T03:55:00.000Z') // lasting past 10 minutes: no push of its own
    await seen('2026-03-16T03:56:00Z')
    await at('2026-03-16T03:56:30.000Z')
    await drop('2026-03-16T04:20:00Z', 15) // a fourth in the chain: nothing
    expect(fake.sent).toHaveLength(3)
    // Flapping still (3 within its hour), until it lasted an hour: an outage then, pushed as one.
    await seen('2026-03-16T04:40:00Z')
    await at('2026-03-16T04:44:00.000Z')
    await at('2026-03-16T05:40:00.000Z')
    expect(fake.sent).toHaveLength(3)
    await at('2026-03-16T05:41:00.000Z')
    expect(devicePushes()[3]).toEqual(
      expect.objectContaining({ tag: `device:${people.storeId}:store:2026-03-16T04:40:00.000Z` }),
    )
  })

  it('the rule, alone', () => {
    const minute = 60_000
    const outage = (since: number, endedAt: number | null = since + 5 * minute): Outage => ({
      storeId: 1,
      since,
      deviceIds: [1],
      endedAt,
    })
    const list = [outage(0), outage(20 * minute), outage(50 * minute, null)]
    expect(flappingOf(list, list[2] as Outage, 55 * minute)).toEqual({ since: 0, episodes: 3 })
    expect(flappingOf(list, list[2] as Outage, 111 * minute)).toBeNull() // an hour long
    const spread = [outage(0), outage(40 * minute), outage(70 * minute, null)]
    expect(flappingOf(spread, spread[2] as Outage, 75 * minute)).toBeNull() // 2 within its hour
    // A chain of outages each within an hour of the one before: one key, however long it runs.
    const chain = [...list.slice(0, 2), outage(50 * minute), outage(60 * minute), outage(100 * minute, null)]
    expect(flappingOf(chain, chain[4] as Outage, 101 * minute)).toEqual({ since: 0, episodes: 3 })
    const device = { id: 7, storeId: 1, name: 'd', seenAt: 0, pending: null }
    expect(outageChange([device], undefined, 3 * minute)).toBeNull() // not yet offline
    expect(outageChange([device], undefined, 3 * minute + 1)).toEqual({ open: { since: 0, deviceIds: [7] } })
    expect(outageChange([], outage(0, null), minute)).toEqual({ end: true }) // revoked
  })
})

describe('the quiet rule after an outage', () => {
  it('does not count the span the device was away as evidence', async () => {
    await seen('2026-03-16T02:00:00Z')
    await at('2026-03-16T02:05:00.000Z')
    await seen('2026-03-16T04:19:30Z')
    await at('2026-03-16T04:20:00.000Z')
    // Without the away span's evidence, the store's 3 h 10 min of silence would be quiet (rules.test.ts).
    await seen('2026-03-16T04:59:30Z')
    await at('2026-03-16T05:00:00.000Z')
    expect(pushed().filter((message) => message.tag.startsWith('quiet:'))).toEqual([])
    // The silence after the return alone reaches the threshold later.
    await seen('2026-03-16T07:59:30Z')
    await at('2026-03-16T08:00:00.000Z')
    expect(pushed().filter((message) => message.tag.startsWith('quiet:'))).toEqual([
      expect.objectContaining({ tag: `quiet:${people.storeId}:2026-03-16T01:50:00.000Z` }),
    ])
  })
})
