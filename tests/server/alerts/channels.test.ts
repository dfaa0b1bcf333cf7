// The alert pipeline once per channel (docs/product.md §12, decisions 230–235): the same cases by Web
// Push (a fake push transport) and by 알림톡 (SOLAPI stood in within this process, solapi-stand-in.ts):
// one alert per episode, the resume after it, quiet hours (held, then sent once when they end), the
// caps, the snooze. Then what only the 알림톡 has: its template and variables, the SMS fallback, the
// daily cap on messages, retries, each alert's delivery in the list, the month's counts for owners.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { caps } from '../../../server/alerts/record.ts'
import { queryRows } from '../../../server/db/client.ts'
import { ownerPhone, pairedDevice, staffPhone } from '../devices/helpers.ts'
import {
  apiKey,
  apiSecret,
  checkedAuthorization,
  pfId,
  providerError,
  sender,
  solapiStandIn,
} from '../messages/solapi-stand-in.ts'
import { fakeTransport } from '../push/helpers.ts'
import { bearer, sharedTestApp, testClock, until, withAnotherInstance } from '../test-app.ts'
import { heartbeat, machine } from './equipment-helpers.ts'
import { pushEnv, quietReadyStore, sale } from './helpers.ts'

const templates = {
  KAKAO_TEMPLATE_QUIET: 'KA01TPQUIET',
  KAKAO_TEMPLATE_DEVICE_OFFLINE: 'KA01TPOFFLINE',
  KAKAO_TEMPLATE_MACHINE_ERROR: 'KA01TPERROR',
  KAKAO_TEMPLATE_PAYMENT_TERMINAL: 'KA01TPTERMINAL',
  KAKAO_TEMPLATE_MORNING_SUMMARY: 'KA01TPSUMMARY',
}
const provider = solapiStandIn()
beforeAll(() => provider.start())
afterAll(() => provider.stop())

// Monday 16 March 2026, 14:00 KST; the store's last sale was at 01:50 UTC (10:50 KST).
const clock = testClock('2026-03-16T05:00:00.000Z')
const fake = fakeTransport()
const channelEnv = {
  ...pushEnv,
  SOLAPI_API_KEY: apiKey,
  SOLAPI_API_SECRET: apiSecret,
  SOLAPI_SENDER: sender,
  KAKAO_PFID: pfId,
  ...templates,
}
const current = sharedTestApp({
  clock,
  env: channelEnv,
  pushTransport: () => fake.transport,
  messageRetry: { attempts: 3, firstDelayMs: 5 },
})
let people: Awaited<ReturnType<typeof quietReadyStore>>

beforeEach(async () => {
  fake.clear()
  provider.reset()
  people = await quietReadyStore(current.app, '2026-03-16T02:00:00.000Z')
})

const evaluate = () => current.app.alertRules.evaluate(clock.now())
const settings = (payload: Record<string, unknown>, access = people.owner) =>
  current.app.inject({
    method: 'PUT',
    url: '/api/v0/alerts/settings',
    headers: bearer(access),
    payload: { storeId: people.storeId, ...payload },
  })
const list = async (access = people.owner) =>
  (await current.app.inject({ method: 'GET', url: '/api/v0/alerts', headers: bearer(access) })).json()
const kakaoSent = () =>
  provider.received.map((request) => request.body.messages[0] as Record<string, unknown>)
/** The owner's titles that went out by the channel. */
const titles = (channel: 'push' | 'kakao') =>
  channel === 'push'
    ? fake.sent.map((request) => (JSON.parse(request.payload) as { title: string }).title)
    : kakaoSent()
        .filter((message) => message.to === ownerPhone)
        .map((message) => String(message.text).split('\n')[0])

describe.each(['push', 'kakao'] as const)('by %s', (channel) => {
  const other = channel === 'push' ? 'kakao' : 'push'
  beforeEach(async () => {
    const chosen = await settings({ channels: { quiet: channel, deviceOffline: channel } })
    expect(chosen.statusCode).toBe(200)
  })

  it('one alert per quiet episode, sent once, by that channel only', async () => {
    expect((await evaluate()).sent).toBe(2) // the owner's and the staff member's
    const [alert] = (await list()).alerts
    expect(alert.deliveries).toEqual([{ channel, status: 'sent' }])
    clock.advance(60_000)
    await evaluate()
    clock.advance(30 * 60_000)
    await evaluate()
    expect(titles(channel)).toEqual(['역삼점 · 판매 없음'])
    expect(titles(other)).toEqual([])
  })

  it('the resume goes once after the alert, by the same channel', async () => {
    await evaluate()
    clock.set('2026-03-16T05:31:00.000Z')
    await sale(current.app, people.storeId, '2026-03-16T05:30:00.000Z')
    expect((await evaluate()).resumed).toBe(2)
    clock.advance(60_000)
    await evaluate()
    expect(titles(channel)).toEqual(['역삼점 · 판매 없음', '역삼점 · 판매 재개'])
    expect(titles(other)).toEqual([])
  })

  it('in quiet hours: held, nothing sent; sent once when they end and it is still true', async () => {
    await settings({ quietHours: { start: '13:00', end: '15:00' } })
    expect((await evaluate()).held).toBe(1)
    expect((await list()).alerts[0].deliveries).toEqual([{ channel, status: 'pending' }])
    clock.set('2026-03-16T05:59:00.000Z')
    await evaluate()
    expect(titles(channel)).toEqual([])
    clock.set('2026-03-16T06:00:00.000Z')
    expect((await evaluate()).released).toBe(1)
    clock.advance(60_000)
    await evaluate()
    expect(titles(channel)).toEqual(['역삼점 · 판매 없음'])
    expect(titles(other)).toEqual([])
  })

  it('over the caps: not recorded, nothing sent', async () => {
    const [owner] = await queryRows<{ id: number }>(
      current.app.db,
      sql`select id from users where phone = ${ownerPhone}`,
    )
    await current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at)
      select ${owner?.id}, ${people.storeId}, 'deviceOffline', 'earlier-' || g, 't', 'b', 't', 'sent', '2026-03-16T01:00:00Z', '2026-03-16T01:00:00Z'
      from generate_series(1, ${caps.store}) g`)
    expect((await evaluate()).capped).toBe(1)
    expect(titles(channel)).toEqual([])
  })

  it('snoozed: nothing', async () => {
    await settings({ snooze: true })
    await evaluate()
    expect(titles(channel)).toEqual([])
    expect(titles(other)).toEqual([])
  })
})

describe('알림톡', () => {
  beforeEach(() => settings({ channels: { quiet: 'kakao' } }))

  it('goes to the person’s own number by the kind’s template, signed, with the alert’s own words', async () => {
    await evaluate()
    expect(provider.received).toHaveLength(1)
    const [request] = provider.received
    const auth = checkedAuthorization(request?.authorization ?? '')
    expect(auth.signature).toBe(auth.expected)
    expect(auth.skewMs).toBeLessThan(60_000)
    expect(request?.body.messages).toEqual([
      expect.objectContaining({
        to: ownerPhone,
        from: sender,
        text: '역삼점 · 판매 없음\n3시간째 결제 없음 · 평소 이 시간 약 19건',
        kakaoOptions: expect.objectContaining({
          pfId,
          templateId: templates.KAKAO_TEMPLATE_QUIET,
          disableSms: false,
          variables: {
            '#{title}': '역삼점 · 판매 없음',
            '#{text}': '3시간째 결제 없음 · 평소 이 시간 약 19건',
          },
        }),
      }),
    ])
  })

  it("a machine's error goes at the heartbeat that confirms it, once", async () => {
    await settings({ channels: { machineError: 'kakao' } })
    const device = await pairedDevice(current.app, people.storeId, people.owner)
    await heartbeat(current.app, device.key, machine('error', 'E21', 'W1'))
    clock.advance(60_000)
    await heartbeat(current.app, device.key, machine('error', 'E21', 'W1'))
    await until(() => provider.received.length > 0)
    expect(kakaoSent()).toEqual([
      expect.objectContaining({
        to: ownerPhone,
        text: '역삼점 · W1 고장\nW1이(가) 14:00부터 고장 상태입니다 (E21).',
        kakaoOptions: expect.objectContaining({ templateId: templates.KAKAO_TEMPLATE_MACHINE_ERROR }),
      }),
    ])
    clock.advance(60_000)
    await heartbeat(current.app, device.key, machine('error', 'E21', 'W1'))
    await current.app.alertRules.deliver(clock.now())
    expect(provider.received).toHaveLength(1)
  })

  it('refused (template not approved): sent as SMS when allowed, told as such', async () => {
    provider.answer(providerError(400, 'InvalidTemplate', '템플릿이 검수되지 않았습니다.'))
    await evaluate()
    expect(kakaoSent().map((message) => message.type ?? 'ATA')).toEqual(['ATA', 'SMS'])
    expect((await list()).alerts[0].deliveries).toEqual([{ channel: 'kakao', status: 'fallbackSms' }])
  })

  it('refused with the fallback not allowed: failed, kept for the operators', async () => {
    await settings({ smsFallback: false })
    provider.answer(providerError(400, 'InvalidTemplate', '템플릿이 검수되지 않았습니다.'))
    await evaluate()
    expect(provider.received).toHaveLength(1)
    expect(provider.received[0]?.body.messages[0]).toMatchObject({ kakaoOptions: { disableSms: true } })
    expect((await list()).alerts[0].deliveries).toEqual([{ channel: 'kakao', status: 'failed' }])
    const failures = await queryRows<{ purpose: string; reason: string; recipient: string }>(
      current.app.db,
      sql`select purpose, reason, recipient from message_failures`,
    )
    expect(failures).toEqual([{ purpose: 'quiet', reason: 'templateNotApproved', recipient: '*******5678' }])
  })

  it('a 5xx is tried again; a send taken is never sent twice', async () => {
    provider.answer(providerError(500, 'InternalError', 'server error'))
    await evaluate()
    expect(provider.received).toHaveLength(2)
    expect((await list()).alerts[0].deliveries).toEqual([{ channel: 'kakao', status: 'sent' }])
    await current.app.alertRules.deliver(clock.now())
    expect(provider.received).toHaveLength(2)
  })

  it('two instances delivering at once send each 알림톡 once', async () => {
    await withAnotherInstance(
      current.app,
      { clock, env: channelEnv, pushTransport: () => fake.transport },
      async (second) => {
        await current.app.alertRules.record(clock.now())
        await Promise.all([
          current.app.alertRules.deliver(clock.now()),
          second.alertRules.deliver(clock.now()),
          current.app.alertRules.deliver(clock.now()),
        ])
        expect(kakaoSent().map((message) => message.to)).toEqual([ownerPhone])
      },
    )
  })

  it(`over the person's ${20} messages of the day: capped, in the list only`, async () => {
    const [owner] = await queryRows<{ id: number }>(
      current.app.db,
      sql`select id from users where phone = ${ownerPhone}`,
    )
    // Twenty of another store today (not counted in the alerts' caps: resumes).
    await current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at, by_kakao, message_status)
      select ${owner?.id}, ${people.otherStoreId}, 'quiet', 'e' || g || '/resume', 't', 'b', 't', 'sent', '2026-03-16T01:00:00Z', '2026-03-16T01:00:00Z', true, 'sent'
      from generate_series(1, 20) g`)
    expect((await evaluate()).sent).toBe(2)
    expect(provider.received).toHaveLength(0)
    const quiet = (await list()).alerts.find(
      (alert: { kind: string; storeId: number }) => alert.storeId === people.storeId,
    )
    expect(quiet.deliveries).toEqual([{ channel: 'kakao', status: 'capped' }])
  })

  it("the month's counts by channel, for the store's owners only", async () => {
    await settings({ channels: { quiet: 'push' } }, people.staff)
    await evaluate()
    expect((await list()).messageCounts).toEqual([
      { storeId: people.storeId, month: '2026-03', push: 0, kakao: 1, sms: 0 },
    ])
    expect((await list(people.staff)).messageCounts).toEqual([])
  })
})

it('the morning summary by 알림톡 (no push subscription) carries no amount for staff with money hidden', async () => {
  await current.app.db.execute(
    sql`update memberships set shows_money = false where store_id = ${people.storeId} and role = 'staff'`,
  )
  clock.set('2026-03-16T00:05:00.000Z')
  expect((await evaluate()).summaries).toBe(2)
  const [staffSummary] = kakaoSent().filter((message) => message.to === staffPhone)
  expect(staffSummary?.kakaoOptions).toMatchObject({ templateId: templates.KAKAO_TEMPLATE_MORNING_SUMMARY })
  expect(staffSummary?.text).toBe(
    '어제 매출 · 3월 15일 · 매장 1곳\n역삼점 66건 (평소와 같음) · 이번 달 990건 (지난달과 같음)',
  )
  // The owner, subscribed, gets it by push, with the amounts.
  expect(fake.sent).toHaveLength(1)
  expect(JSON.parse(fake.sent[0]?.payload ?? '{}').body).toMatch(/^역삼점 198,000원 66건/)
})

describe('the channels chosen', () => {
  it('default to push; the morning summary to 알림톡 for a person with no push subscription', async () => {
    const owner = await current.app.inject({
      method: 'GET',
      url: '/api/v0/alerts/settings',
      headers: bearer(people.owner),
    })
    const staff = await current.app.inject({
      method: 'GET',
      url: '/api/v0/alerts/settings',
      headers: bearer(people.staff),
    })
    expect(owner.json().stores[0]).toMatchObject({
      channels: { quiet: 'push', morningSummary: 'push' },
      smsFallback: true,
    })
    expect(staff.json().stores[0].channels.morningSummary).toBe('kakao')
    expect(owner.json().kakaoKinds).toEqual([
      'quiet',
      'deviceOffline',
      'machineError',
      'paymentTerminal',
      'morningSummary',
    ])
  })

  it('none turns the kind off; a kind with no template cannot go by 알림톡 (400)', async () => {
    const off = await settings({ channels: { quiet: 'none', machineError: 'both' } })
    expect(off.json().stores[0]).toMatchObject({
      quiet: false,
      machineError: true,
      channels: { quiet: 'none', machineError: 'both' },
    })
    expect((await evaluate()).sent).toBe(1) // the staff member's only
    const refused = await settings({ channels: { machineSilent: 'kakao' } })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().message).toMatch(/알림톡/)
    const bad = await settings({ channels: { quiet: 'sms' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().message).toBe('알림 방법은 push, kakao, both, none 중 하나로 정해 주세요.')
  })
})
