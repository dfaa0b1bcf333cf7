// The alert rules (server/alerts/) with a fake push transport and a test clock: one alert per
// quiet episode, the resume replacement under the same tag, quiet hours (held, then one push when they
// end; windows across midnight and across the UTC date change), snooze, caps, the grouped device
// alert and no quiet alert while devices are offline, the morning summary's content.
import { sql } from 'drizzle-orm'
import { beforeEach, describe, expect, it } from 'vitest'
import { resumeText, summaryMessage } from '../../../domain/alert-texts.ts'
import { silentOf } from '../../../server/alerts/device-offline.ts'
import { caps } from '../../../server/alerts/record.ts'
import { inQuietHours } from '../../../server/alerts/settings.ts'
import { grant, revoke } from '../../../server/db/accounts.ts'
import { queryRows } from '../../../server/db/client.ts'
import { ownerPhone, pairedDevice, staffPhone } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { bearer, sharedTestApp, testClock } from '../test-app.ts'
import { alertRows, pushEnv, quietReadyStore, sale, subscribe } from './helpers.ts'

// Monday 16 March 2026, 14:00 KST; the store's last sale was at 01:50 UTC (10:50 KST).
const clock = testClock('2026-03-16T05:00:00.000Z')
const fake = fakeTransport()
const current = sharedTestApp({ clock, env: pushEnv, pushTransport: () => fake.transport })
let people: Awaited<ReturnType<typeof quietReadyStore>>

beforeEach(async () => {
  fake.clear()
  people = await quietReadyStore(current.app, '2026-03-16T02:00:00.000Z')
})

const evaluate = () => current.app.alertRules.evaluate(clock.now())
const pushed = () =>
  fake.sent.map(
    (request) => JSON.parse(request.payload) as { title: string; body: string; tag: string; store?: number },
  )
const settings = (payload: Record<string, unknown>) =>
  current.app.inject({
    method: 'PUT',
    url: '/api/v0/alerts/settings',
    headers: bearer(people.owner),
    payload: { storeId: people.storeId, ...payload },
  })

describe('quiet store', () => {
  it('is one alert per quiet episode, for each member, pushed once', async () => {
    const report = await evaluate()
    expect(report.sent).toBe(2) // the owner and the staff member, each their own row
    expect(pushed()).toEqual([
      {
        title: '역삼점 · 판매 없음',
        body: '3시간째 결제 없음 · 평소 이 시간 약 19건',
        tag: `quiet:${people.storeId}:2026-03-16T01:50:00.000Z`,
        store: people.storeId,
      },
    ])
    expect(fake.sent[0]?.urgency).toBe('high')
    clock.advance(60_000)
    await evaluate()
    clock.advance(30 * 60_000)
    await evaluate()
    expect(fake.sent).toHaveLength(1)
    expect((await alertRows(current.app)).map((row) => [row.kind, row.episode, row.state])).toEqual([
      ['quiet', '2026-03-16T01:50:00.000Z', 'sent'],
      ['quiet', '2026-03-16T01:50:00.000Z', 'sent'],
    ])
  })

  it('says nothing from too little history', async () => {
    await current.app.db.execute(sql`delete from usages where created_at < '2026-02-20'`)
    const report = await evaluate()
    expect(report.sent + report.held).toBe(0)
    expect(fake.sent).toHaveLength(0)
  })

  it('when sales resume, replaces the same notification once (same tag)', async () => {
    await evaluate()
    const [alert] = pushed()
    clock.set('2026-03-16T05:31:00.000Z')
    await sale(current.app, people.storeId, '2026-03-16T05:30:00.000Z')
    const report = await evaluate()
    expect(report.resumed).toBe(2)
    expect(pushed()[1]).toEqual({
      title: '역삼점 · 판매 재개',
      body: '다시 판매 시작 · 14:30 (3시간 40분 무판매)',
      tag: alert?.tag,
      store: people.storeId,
    })
    clock.advance(60_000)
    await evaluate()
    expect(fake.sent).toHaveLength(2)
  })

  it('a resume measures the gap from the last sale before it, on the day before too', async () => {
    // The last sale was yesterday at 11:50 UTC (20:50 KST): the quiet span runs from it, across
    // 00:00 UTC (the evidence resets only on a sale), and the store sold nothing for 17 h 40 min.
    await current.app.db.execute(
      sql`delete from usages where store_id = ${people.storeId} and created_at >= '2026-03-15T12:00:00Z'`,
    )
    await evaluate()
    const [alert] = pushed()
    expect(alert?.tag).toBe(`quiet:${people.storeId}:2026-03-15T11:50:00.000Z`)
    clock.set('2026-03-16T05:31:00.000Z')
    await sale(current.app, people.storeId, '2026-03-16T05:30:00.000Z')
    await evaluate()
    expect(pushed()[1]?.body).toBe('다시 판매 시작 · 14:30 (17시간 40분 무판매)')
  })

  it('a resume tells the first sale after the gap, when several came between evaluations', async () => {
    await evaluate()
    clock.set('2026-03-16T05:31:00.000Z')
    await sale(current.app, people.storeId, '2026-03-16T05:10:00.000Z')
    await sale(current.app, people.storeId, '2026-03-16T05:20:00.000Z')
    await sale(current.app, people.storeId, '2026-03-16T05:30:00.000Z')
    await evaluate()
    expect(pushed()[1]?.body).toBe('다시 판매 시작 · 14:10 (3시간 20분 무판매)')
  })

  it('a resume goes to no one removed from the store since, nor to a user who snoozed it or turned its quiet alerts off', async () => {
    await subscribe(current.app, people.staff, 'staff')
    expect((await evaluate()).sent).toBe(2)
    expect(fake.sent).toHaveLength(2)
    await revoke(current.app.db, staffPhone, people.storeId)
    await settings({ snooze: true })
    clock.set('2026-03-16T05:31:00.000Z')
    await sale(current.app, people.storeId, '2026-03-16T05:30:00.000Z')
    expect((await evaluate()).resumed).toBe(0)
    await settings({ snooze: false, quiet: false })
    clock.advance(60_000)
    expect((await evaluate()).resumed).toBe(0)
    expect(fake.sent).toHaveLength(2)
  })

  it('a resume is not sent for an alert that was only held', async () => {
    await settings({ quietHours: { start: '13:00', end: '14:40' } })
    expect((await evaluate()).held).toBe(1)
    clock.set('2026-03-16T05:31:00.000Z')
    await sale(current.app, people.storeId, '2026-03-16T05:30:00.000Z')
    clock.set('2026-03-16T05:41:00.000Z') // 14:41 KST: quiet hours over, sales back
    const report = await evaluate()
    expect(report.released).toBe(0)
    expect(report.resumed).toBe(1) // the staff member's, whose alert was sent (defaults); not the owner's
    expect(fake.sent).toHaveLength(0)
  })
})

describe('settings', () => {
  it('holds an alert in quiet hours and, still true when they end, pushes it once then', async () => {
    await settings({ quietHours: { start: '13:00', end: '15:00' } })
    expect((await evaluate()).held).toBe(1) // the owner's; the staff member's defaults let it through
    expect(fake.sent).toHaveLength(0)
    const list = await current.app.inject({
      method: 'GET',
      url: '/api/v0/alerts',
      headers: bearer(people.owner),
    })
    expect(list.json().alerts.map((alert: { state: string }) => alert.state)).toEqual(['held'])
    clock.set('2026-03-16T05:59:00.000Z') // 14:59 KST: still quiet hours
    await evaluate()
    expect(fake.sent).toHaveLength(0)
    clock.set('2026-03-16T06:00:00.000Z') // 15:00 KST: over
    const report = await evaluate()
    expect(report.released).toBe(1)
    expect(pushed()).toEqual([expect.objectContaining({ title: '역삼점 · 판매 없음' })])
    clock.advance(60_000)
    await evaluate()
    expect(fake.sent).toHaveLength(1)
  })

  it('held alerts of several stores go in one push when quiet hours end', async () => {
    // The owner's second store, gone quiet the same way, with the same quiet hours.
    await current.app.db.execute(sql`insert into memberships (user_id, store_id, role)
      select user_id, ${people.otherStoreId}, 'owner' from memberships where store_id = ${people.storeId} and role = 'owner'`)
    await current.app.db.execute(sql`update stores set name = '강남점' where id = ${people.otherStoreId}`)
    await current.app.db.execute(sql`insert into usages (store_id, created_at, amount)
      select ${people.otherStoreId}, created_at, amount from usages where store_id = ${people.storeId}`)
    await settings({ quietHours: { start: '13:00', end: '15:00' } })
    await settings({ storeId: people.otherStoreId, quietHours: { start: '13:00', end: '15:00' } })
    expect((await evaluate()).held).toBe(2)
    clock.set('2026-03-16T06:00:00.000Z')
    const report = await evaluate()
    expect(report).toMatchObject({ released: 2, releasePushes: 1 })
    expect(pushed()).toEqual([
      {
        title: '방해 금지 시간 동안의 알림 2개',
        body: '역삼점 · 판매 없음\n강남점 · 판매 없음',
        tag: 'held:2026-03-16',
      },
    ])
  })

  it('quiet hours: windows across midnight and across the UTC date change', () => {
    const night = { start: 23 * 60, end: 7 * 60 }
    expect(inQuietHours(night, new Date('2026-03-16T13:59:00Z'))).toBe(false) // 22:59 KST
    expect(inQuietHours(night, new Date('2026-03-16T14:00:00Z'))).toBe(true) // 23:00 KST
    expect(inQuietHours(night, new Date('2026-03-16T15:30:00Z'))).toBe(true) // 00:30 KST, next Korean day
    expect(inQuietHours(night, new Date('2026-03-16T21:59:00Z'))).toBe(true) // 06:59 KST
    expect(inQuietHours(night, new Date('2026-03-16T22:00:00Z'))).toBe(false) // 07:00 KST
    // 08:00–10:00 KST spans 00:00 UTC, where the app's day (and the UTC date) changes.
    const morning = { start: 8 * 60, end: 10 * 60 }
    expect(inQuietHours(morning, new Date('2026-03-15T23:30:00Z'))).toBe(true)
    expect(inQuietHours(morning, new Date('2026-03-16T00:30:00Z'))).toBe(true)
    expect(inQuietHours(morning, new Date('2026-03-16T01:00:00Z'))).toBe(false)
    // 20:00–10:00 KST: across midnight and the UTC date change.
    const long = { start: 20 * 60, end: 10 * 60 }
    for (const at of [
      '2026-03-16T11:00:00Z',
      '2026-03-16T15:00:00Z',
      '2026-03-16T23:59:00Z',
      '2026-03-17T00:59:00Z',
    ])
      expect(inQuietHours(long, new Date(at))).toBe(true)
    expect(inQuietHours(long, new Date('2026-03-17T01:00:00Z'))).toBe(false)
    expect(inQuietHours(null, new Date('2026-03-16T15:00:00Z'))).toBe(false)
  })

  it('a store snoozed for 24 h raises nothing; its kind off neither', async () => {
    await settings({ snooze: true })
    await current.app.inject({
      method: 'PUT',
      url: '/api/v0/alerts/settings',
      headers: bearer(people.staff),
      payload: { storeId: people.storeId, quiet: false },
    })
    const report = await evaluate()
    expect(report.sent + report.held).toBe(0)
    expect(await alertRows(current.app)).toEqual([])
    clock.advance(24 * 60 * 60_000 + 60_000) // Tuesday 05:01 UTC: the snooze is over
    await sale(current.app, people.storeId, '2026-03-16T06:00:00.000Z')
    const after = await evaluate()
    expect(after.sent).toBe(1) // the owner's; the staff member turned quiet alerts off
  })

  it(`caps: at most ${caps.store} alerts a store and ${caps.all} in all a day (not recorded beyond)`, async () => {
    const ownerId = await userId(people.owner)
    const insert = (storeId: number, n: number, at: string) =>
      current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at)
        select ${ownerId}, ${storeId}, 'deviceOffline', 'earlier-' || g, 't', 'b', 't', 'sent', ${at}::timestamptz, ${at}::timestamptz
        from generate_series(1, ${n}) g`)
    // Three of this store yesterday (another app day) do not count; three today do.
    await insert(people.storeId, caps.store, '2026-03-15T23:00:00Z')
    expect((await evaluate()).capped).toBe(0)
    fake.clear()
    await current.app.db.execute(sql`delete from alerts`)
    await insert(people.storeId, caps.store, '2026-03-16T01:00:00Z')
    const report = await evaluate()
    expect(report.capped).toBe(1) // the owner's
    expect(report.sent).toBe(1) // the staff member's
    expect(fake.sent).toHaveLength(0) // the staff member has no subscription; the owner got nothing
    // Six in all (of other stores) cap as well.
    await current.app.db.execute(sql`delete from alerts`)
    await insert(people.otherStoreId, caps.all, '2026-03-16T01:00:00Z')
    expect((await evaluate()).capped).toBe(1)
    await current.app.db.execute(sql`delete from alerts`)
    await insert(people.otherStoreId, caps.all - 1, '2026-03-16T01:00:00Z')
    expect((await evaluate()).capped).toBe(0)
  })
})

describe('devices offline', () => {
  it('every device of a store dropping at once is one store alert, after 10 minutes, and no quiet alert', async () => {
    const one = await pairedDevice(current.app, people.storeId, people.owner, '카운터 옆 결제기')
    const two = await pairedDevice(current.app, people.storeId, people.owner, '동전 교환기')
    await current.app.db.execute(
      sql`update devices set last_seen_at = '2026-03-16T04:50:00Z' where id = ${one.deviceId}`,
    )
    await current.app.db.execute(
      sql`update devices set last_seen_at = '2026-03-16T04:50:40Z' where id = ${two.deviceId}`,
    )
    clock.set('2026-03-16T04:55:00.000Z')
    await evaluate() // offline in the app, not 10 minutes yet
    expect(fake.sent).toHaveLength(0)
    clock.set('2026-03-16T05:00:00.000Z')
    await evaluate()
    expect(pushed()).toEqual([
      {
        title: '역삼점 · 단말기 연결 끊김',
        body: '단말기 2대 모두 13:50부터 응답하지 않습니다.',
        tag: `device:${people.storeId}:store:2026-03-16T04:50:00.000Z`,
        store: people.storeId,
      },
    ])
    clock.advance(10 * 60_000)
    await evaluate()
    expect(fake.sent).toHaveLength(1)
    expect((await alertRows(current.app)).every((row) => row.kind === 'deviceOffline')).toBe(true)
  })

  it('one device of several: the store outage, naming it, 10 minutes after its last heartbeat', async () => {
    const one = await pairedDevice(current.app, people.storeId, people.owner, '카운터 옆 결제기')
    const two = await pairedDevice(current.app, people.storeId, people.owner, '동전 교환기')
    await current.app.db.execute(
      sql`update devices set last_seen_at = '2026-03-16T04:56:30Z' where id = ${one.deviceId}`,
    )
    await current.app.db.execute(
      sql`update devices set last_seen_at = '2026-03-16T04:59:30Z' where id = ${two.deviceId}`,
    )
    await evaluate() // 3.5 min: offline in the app
    expect(fake.sent).toHaveLength(0)
    clock.set('2026-03-16T05:06:00.000Z')
    await current.app.db.execute(
      sql`update devices set last_seen_at = '2026-03-16T05:05:30Z' where id = ${two.deviceId}`,
    )
    await evaluate() // 9.5 min
    expect(fake.sent).toHaveLength(0)
    clock.set('2026-03-16T05:07:00.000Z')
    await evaluate()
    expect(pushed()).toEqual([
      expect.objectContaining({ body: '‘카운터 옆 결제기’가 13:56부터 응답하지 않습니다.' }),
    ])
  })

  it('the naming rule, alone', () => {
    const now = Date.parse('2026-03-16T05:00:00Z')
    const device = (id: number, seen: string) => ({
      id,
      storeId: 1,
      name: `d${id}`,
      seenAt: Date.parse(seen),
      pending: null,
    })
    expect(silentOf([], now)).toBeNull()
    expect(silentOf([device(1, '2026-03-16T04:59:00Z')], now)).toBeNull()
    expect(silentOf([device(1, '2026-03-16T04:50:00Z'), device(2, '2026-03-16T04:52:00Z')], now)).toEqual({
      silent: { devices: 2 },
      since: Date.parse('2026-03-16T04:52:00Z'),
    })
    expect(
      silentOf(
        [
          device(1, '2026-03-16T04:50:00Z'),
          device(2, '2026-03-16T04:52:00Z'),
          device(3, '2026-03-16T04:59:00Z'),
        ],
        now,
      ),
    ).toEqual({ silent: { device: 'd1', more: 1 }, since: Date.parse('2026-03-16T04:50:00Z') })
  })
})

describe('morning summary', () => {
  it('at 09:05 KST: yesterday against the usual weekday, the month against the last, quiet episodes; one for all stores, once', async () => {
    // The owner's second store, with the same history.
    await current.app.db.execute(sql`insert into memberships (user_id, store_id, role)
      select user_id, ${people.otherStoreId}, 'owner' from memberships where store_id = ${people.storeId} and role = 'owner'`)
    await current.app.db.execute(sql`update stores set name = '강남점' where id = ${people.otherStoreId}`)
    await current.app.db.execute(sql`insert into usages (store_id, created_at, amount)
      select ${people.otherStoreId}, created_at, amount * 2 from usages where store_id = ${people.storeId}`)
    // A quiet episode of yesterday (Sunday 15 March) in the record.
    const ownerId = await userId(people.owner)
    await current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at)
      values (${ownerId}, ${people.storeId}, 'quiet', '2026-03-15T05:10:00.000Z', 't', 'b', 't', 'held', '2026-03-15T08:00:00Z', null)`)
    clock.set('2026-03-16T00:04:00.000Z')
    expect((await evaluate()).summaries).toBe(0)
    clock.set('2026-03-16T00:05:00.000Z')
    expect((await evaluate()).summaries).toBe(2) // the owner's and the staff member's
    // 66 sales a day of 3,000원; March 1–15 against February 1–15.
    expect(pushed()).toEqual([
      {
        title: '어제 매출 · 3월 15일 · 매장 2곳',
        body: [
          '역삼점 198,000원 66건 (평소와 같음) · 이번 달 2,970,000원 (지난달과 같음) · 판매 없음 1번',
          '강남점 396,000원 66건 (평소와 같음) · 이번 달 5,940,000원 (지난달과 같음)',
        ].join('\n'),
        tag: 'summary:2026-03-15',
      },
    ])
    clock.advance(60_000)
    await evaluate()
    expect(fake.sent).toHaveLength(1)
    // Not counted in the caps: the owner still gets the day's alerts.
  })

  /** The owner's second store, its history the same: a summary of two stores. */
  async function secondStore() {
    await current.app.db.execute(sql`insert into memberships (user_id, store_id, role)
      select user_id, ${people.otherStoreId}, 'owner' from memberships where store_id = ${people.storeId} and role = 'owner'`)
    await current.app.db.execute(sql`insert into usages (store_id, created_at, amount)
      select ${people.otherStoreId}, created_at, amount from usages where store_id = ${people.storeId}`)
  }
  const summariesListed = async () =>
    (await current.app.inject({ method: 'GET', url: '/api/v0/alerts', headers: bearer(people.owner) }))
      .json()
      .alerts.filter((alert: { kind: string }) => alert.kind === 'morningSummary')

  it('is listed only while the user still sees every store it names', async () => {
    await secondStore()
    clock.set('2026-03-16T00:05:00.000Z')
    expect((await evaluate()).summaries).toBe(2)
    expect(await summariesListed()).toEqual([
      expect.objectContaining({ title: '어제 매출 · 3월 15일 · 매장 2곳' }),
    ])
    await revoke(current.app.db, ownerPhone, people.otherStoreId)
    expect(await summariesListed()).toEqual([])
  })

  it('held in quiet hours, is not pushed after the user lost one of its stores', async () => {
    await secondStore()
    await settings({ quietHours: { start: '08:00', end: '10:00' } })
    await settings({ storeId: people.otherStoreId, quietHours: { start: '08:00', end: '10:00' } })
    clock.set('2026-03-16T00:05:00.000Z')
    await evaluate()
    expect(
      (await alertRows(current.app)).filter((row) => row.kind === 'morningSummary' && row.state === 'held'),
    ).toHaveLength(1)
    await revoke(current.app.db, ownerPhone, people.otherStoreId)
    clock.set('2026-03-16T01:00:00.000Z') // 10:00 KST: quiet hours over
    await evaluate()
    // Only the owner is subscribed: the summary naming the lost store stays held, listed nowhere.
    expect(pushed().filter((message) => message.title.startsWith('어제 매출'))).toEqual([])
    expect(
      (await alertRows(current.app)).filter((row) => row.kind === 'morningSummary' && row.state === 'held'),
    ).toHaveLength(1)
    // Given the store back, the user sees all it names again: it goes.
    await grant(current.app.db, ownerPhone, people.otherStoreId, 'owner')
    clock.advance(60_000)
    await evaluate()
    expect(pushed().filter((message) => message.title.startsWith('어제 매출'))).toEqual([
      expect.objectContaining({ title: '어제 매출 · 3월 15일 · 매장 2곳' }),
    ])
  })

  it('its text: more or fewer than usual, and a long list cut short', () => {
    const store = (name: string, sum: number, usualSum: number | null) => ({
      name,
      sum,
      count: 10,
      usualSum,
      monthSum: 1000,
      previousMonthSum: 2000,
      quietEpisodes: 0,
    })
    const message = summaryMessage(Date.parse('2026-03-15T00:00:00Z'), [
      store('가', 108, 100),
      store('나', 50, 100),
      store('다', 50, null),
      ...Array.from({ length: 7 }, (_, i) => store(`s${i}`, 1, 1)),
    ])
    const lines = message.body.split('\n')
    expect(lines[0]).toBe('가 108원 10건 (평소보다 8% 많음) · 이번 달 1,000원 (지난달보다 50% 적음)')
    expect(lines[1]).toBe('나 50원 10건 (평소보다 50% 적음) · 이번 달 1,000원 (지난달보다 50% 적음)')
    expect(lines[2]).toBe('다 50원 10건 · 이번 달 1,000원 (지난달보다 50% 적음)')
    expect(lines).toHaveLength(9)
    expect(lines[8]).toBe('외 2곳')
  })
})

it('resume text', () => {
  expect(resumeText(Date.parse('2026-03-16T01:50:00Z'), Date.parse('2026-03-16T05:30:00Z'))).toBe(
    '다시 판매 시작 · 14:30 (3시간 40분 무판매)',
  )
})

async function userId(_access: string) {
  const [row] = await queryRows<{ user_id: number }>(
    current.app.db,
    sql`select user_id from memberships where store_id = ${people.storeId} and role = 'owner'`,
  )
  return Number(row?.user_id)
}
