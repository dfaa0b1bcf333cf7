// A stopped instance's 알림톡 rows (docs/product.md §12, decision 250): left `taken`, sent exactly once by
// the next delivery after the bound (not before; past its lifetime, failed); left `sending`, never sent
// again (`unknown`); several instances sweeping and delivering at once still send each alert once.
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { deliverMessages, type MessageChannel } from '../../../server/alerts/message-outbox.ts'
import { inFlightBoundMs } from '../../../server/alerts/message-sweep.ts'
import { queryRows } from '../../../server/db/client.ts'
import type { MessageTransport } from '../../../server/messages/transport.ts'
import { until } from '../test-app.ts'
import { messageOutboxSetup } from './message-setup.ts'

const { provider, clock, current, state, kakaoTexts, kakaoDeliveries, kakaoRows, withSecondInstance } =
  messageOutboxSetup()
const quietText = '역삼점 · 판매 없음\n3시간째 결제 없음 · 평소 이 시간 약 19건'
const deliver = (at = clock.now()) => current.app.alertRules.deliver(at)

/** Records the minute's alerts and leaves the 알림톡 as an instance that stopped at `status` leaves it. */
async function leftBy(status: 'taken' | 'sending') {
  await current.app.alertRules.record(clock.now())
  // What take() (and then withinCap(), for `sending`) write, and nothing after: the instance stopped.
  const left = await queryRows<{ id: number }>(
    current.app.db,
    sql`update alerts set message_pending = false, message_status = ${status},
          message_taken_at = ${clock.now().toISOString()}::timestamptz
        where message_pending returning id`,
  )
  expect(left).toHaveLength(1)
}

describe('a row left taken (never handed to the provider)', () => {
  it('is sent exactly once, by the next delivery after the bound, not before', async () => {
    await leftBy('taken')
    await deliver()
    clock.advance(inFlightBoundMs - 1000)
    await deliver()
    expect(provider.received).toHaveLength(0)
    expect(await kakaoDeliveries()).toEqual([{ channel: 'kakao', status: 'pending' }])
    clock.advance(2000)
    const report = await deliver()
    expect(report.messages).toMatchObject({ sent: 1, swept: { retaken: 1, unknown: 0 } })
    expect(kakaoTexts()).toEqual([quietText])
    expect(await kakaoDeliveries()).toEqual([{ channel: 'kakao', status: 'sent' }])
    clock.advance(inFlightBoundMs * 2)
    await deliver()
    expect(kakaoTexts()).toEqual([quietText])
  })

  it('past its lifetime (4 h) it is failed, not sent', async () => {
    await leftBy('taken')
    clock.advance(4 * 3_600_000 + 60_000)
    await deliver()
    expect(provider.received).toHaveLength(0)
    expect(await kakaoRows()).toEqual([{ message_status: 'failed', message_report: null }])
  })
})

describe('a row left sending (it may have reached the provider)', () => {
  it('is never sent again: unknown after the bound, final', async () => {
    await leftBy('sending')
    clock.advance(inFlightBoundMs - 1000)
    await deliver()
    expect(await kakaoDeliveries()).toEqual([{ channel: 'kakao', status: 'pending' }])
    clock.advance(2000)
    expect((await deliver()).messages?.swept).toEqual({ retaken: 0, unknown: 1 })
    expect(await kakaoDeliveries()).toEqual([{ channel: 'kakao', status: 'unknown' }])
    clock.advance(4 * 3_600_000)
    await deliver()
    expect(provider.received).toHaveLength(0)
    expect(await kakaoRows()).toEqual([{ message_status: 'unknown', message_report: null }])
  })

  it("counts in the person's messages of the day (it may have reached them)", async () => {
    await leftBy('sending')
    clock.advance(inFlightBoundMs + 1000)
    await deliver()
    // Nineteen more sent today: with the unknown one, the day's 20 are reached.
    await current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at, by_push, by_kakao, message_status)
      select ${state.ownerId}, ${state.people.otherStoreId}, 'quiet', 'e' || g || '/resume', 't', 'b', 't', 'sent', '2026-03-16T01:00:00Z', '2026-03-16T01:00:00Z', false, true, 'sent'
      from generate_series(1, 19) g`)
    await current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at, by_push, by_kakao, message_pending)
      values (${state.ownerId}, ${state.people.otherStoreId}, 'quiet', 'one more', 't', 'b', 't', 'sent', ${clock.now().toISOString()}::timestamptz, ${clock.now().toISOString()}::timestamptz, false, true, true)`)
    expect((await deliver()).messages).toMatchObject({ sent: 0, capped: 1 })
    expect(provider.received).toHaveLength(0)
  })
})

it('two instances sweeping and delivering at once send each alert once', async () => {
  // Six alerts a stopped instance had taken, and two still in the outbox.
  const at = clock.now().toISOString()
  await current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at, by_push, by_kakao, message_pending, message_status, message_taken_at)
    select ${state.ownerId}, ${state.people.storeId}, 'quiet', 'e' || g, '알림 ' || g, 'b', 't', 'sent', ${at}::timestamptz, ${at}::timestamptz, false, true, g > 6, case when g > 6 then null else 'taken' end, case when g > 6 then null else ${at}::timestamptz end
    from generate_series(1, 8) g`)
  clock.advance(inFlightBoundMs + 1000)
  await withSecondInstance(async (second) => {
    await Promise.all([
      deliver(),
      second.alertRules.deliver(clock.now()),
      deliver(),
      second.alertRules.deliver(clock.now()),
    ])
    expect(kakaoTexts().sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((g) => `알림 ${g}\nb`).sort())
    expect(new Set((await kakaoDeliveries()).map((delivery) => JSON.stringify(delivery)))).toEqual(
      new Set([JSON.stringify({ channel: 'kakao', status: 'sent' })]),
    )
  })
})

/** A channel whose sends wait for `gate` (when given), recording each recipient's text. */
function fakeChannel(sent: string[], gate?: Promise<void>): MessageChannel {
  const transport: MessageTransport = {
    sms: () => Promise.reject(new Error('no SMS here')),
    reports: async () => new Map(),
    async alimtalk(_to, _template, variables) {
      sent.push(variables.title ?? '')
      if (sent.length === 1) await gate
      return { status: 'sent', channel: 'alimtalk', groupId: 'G', messageId: `M${sent.length}` }
    },
  }
  const log = { error() {}, warn() {} }
  return { transport: async () => transport, templates: { quiet: 'KA01TPQUIET' }, perUserPerDay: 20, log }
}

it('an instance only slow, back to a row swept and sent since by another, leaves it be', async () => {
  const at = clock.now().toISOString()
  await current.app.db.execute(sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at, by_push, by_kakao, message_pending)
    select ${state.ownerId}, ${state.people.storeId}, 'quiet', 'e' || g, '알림 ' || g, 'b', 't', 'sent', ${at}::timestamptz, ${at}::timestamptz, false, true, true
    from generate_series(1, 2) g`)
  let open = () => {}
  const gate = new Promise<void>((resolve) => {
    open = resolve
  })
  const bySlow: string[] = []
  const byOther: string[] = []
  // The slow instance takes both and hangs in its first send, past the bound.
  const slow = deliverMessages(current.app.db, fakeChannel(bySlow, gate), clock.now())
  await until(() => bySlow.length === 1)
  clock.advance(inFlightBoundMs + 1000)
  const other = await deliverMessages(current.app.db, fakeChannel(byOther), clock.now())
  expect(other).toMatchObject({ sent: 1, swept: { retaken: 1, unknown: 1 } })
  open()
  expect(await slow).toMatchObject({ sent: 1 })
  // Each alert once: the one in flight by the slow instance (its outcome over `unknown`), the other by the other.
  expect([...bySlow, ...byOther].sort()).toEqual(['알림 1', '알림 2'])
  expect(await kakaoRows()).toEqual([
    { message_status: 'sent', message_report: null },
    { message_status: 'sent', message_report: null },
  ])
})
