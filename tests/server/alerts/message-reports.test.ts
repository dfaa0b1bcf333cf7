// The 알림톡's delivery reports (docs/product.md §12, decision 251): the provider's message id is kept when
// it takes the message; a minute later and then each minute the delivery asks the provider (GET
// /messages/v4/list by message id, stood in: solapi-stand-in.ts) until its final word, recorded and shown;
// none in 24 h is `noReport`. Two instances asking at once ask about each message once.
import { expect, it } from 'vitest'
import { reportAskEveryMs, reportGiveUpMs } from '../../../server/alerts/message-reports.ts'
import { accepted, checkedAuthorization, providerError } from '../messages/solapi-stand-in.ts'
import { bearer } from '../test-app.ts'
import { messageOutboxSetup } from './message-setup.ts'

const { provider, clock, current, state, kakaoDeliveries, kakaoRows, withSecondInstance } =
  messageOutboxSetup()
const evaluate = () => current.app.alertRules.evaluate(clock.now())
const deliver = () => current.app.alertRules.deliver(clock.now())
const minute = () => clock.advance(reportAskEveryMs)
const askedIds = () => provider.queried.flatMap((query) => query.messageIds)

it('asked a minute after the send, then each minute until final: delivered', async () => {
  provider.answer(accepted('G4VQUIET', 'M4VQUIET'))
  await evaluate()
  await deliver()
  expect(provider.queried).toHaveLength(0)
  minute()
  await deliver()
  // What the provider receives: its message list by our message's id, signed as every request.
  expect(provider.queried).toEqual([
    expect.objectContaining({
      messageIds: ['M4VQUIET'],
      limit: '1',
      path: expect.stringMatching(/^\/messages\/v4\/list\?/),
    }),
  ])
  const auth = checkedAuthorization(provider.queried[0]?.authorization ?? '')
  expect(auth.signature).toBe(auth.expected)
  // 3000: handed to Kakao, no final word yet; not asked again within the minute.
  expect(await kakaoDeliveries()).toEqual([{ channel: 'kakao', status: 'sent' }])
  await deliver()
  expect(provider.queried).toHaveLength(1)
  provider.report('M4VQUIET', '4000')
  minute()
  await deliver()
  expect(await kakaoDeliveries()).toEqual([{ channel: 'kakao', status: 'sent', report: 'delivered' }])
  minute()
  await deliver()
  expect(askedIds()).toEqual(['M4VQUIET', 'M4VQUIET'])
})

it.each([
  ['3104', {}, 'undelivered'],
  ['4000', { type: 'SMS', replacement: true }, 'deliveredSms'],
] as const)('status %s (%o) is %s', async (statusCode, kept, report) => {
  provider.answer(accepted('G4VQUIET', 'M4VQUIET'))
  await evaluate()
  provider.report('M4VQUIET', statusCode, kept)
  minute()
  await deliver()
  expect(await kakaoDeliveries()).toEqual([{ channel: 'kakao', status: 'sent', report }])
})

it('a 알림톡 the provider sent on as SMS counts as an SMS in the month', async () => {
  provider.answer(accepted('G4VQUIET', 'M4VQUIET'))
  await evaluate()
  provider.report('M4VQUIET', '4000', { type: 'SMS', replacement: true })
  minute()
  await deliver()
  const answer = await current.app.inject({
    method: 'GET',
    url: '/api/v0/alerts',
    headers: bearer(state.people.owner),
  })
  expect(answer.json().messageCounts).toEqual([
    { storeId: state.people.storeId, month: '2026-03', push: 0, kakao: 0, sms: 1 },
  ])
})

it('a query that failed is asked again the next minute', async () => {
  provider.answer(accepted('G4VQUIET', 'M4VQUIET'))
  await evaluate()
  provider.report('M4VQUIET', '4000')
  provider.answerQuery(providerError(500, 'InternalError', 'server error'))
  minute()
  expect((await deliver()).messages?.reports).toEqual({ asked: 1, delivered: 0, undelivered: 0, noReport: 0 })
  expect((await kakaoRows())[0]?.message_report).toBeNull()
  minute()
  await deliver()
  expect(await kakaoRows()).toEqual([{ message_status: 'sent', message_report: 'delivered' }])
})

it('no final word within 24 h: no report, not asked again', async () => {
  provider.answer(accepted('G4VQUIET', 'M4VQUIET'))
  await evaluate()
  minute()
  await deliver()
  clock.advance(reportGiveUpMs)
  expect((await deliver()).messages?.reports).toMatchObject({ noReport: 1, asked: 0 })
  expect(await kakaoRows()).toEqual([{ message_status: 'sent', message_report: 'noReport' }])
  minute()
  await deliver()
  expect(askedIds()).toEqual(['M4VQUIET'])
})

it('two instances asking at once ask the provider about each message once', async () => {
  provider.answer(accepted('G4VQUIET', 'M4VQUIET'))
  await evaluate()
  provider.report('M4VQUIET', '4000')
  minute()
  await withSecondInstance(async (second) => {
    await Promise.all([deliver(), second.alertRules.deliver(clock.now()), deliver()])
    expect(askedIds()).toEqual(['M4VQUIET'])
    expect(await kakaoRows()).toEqual([{ message_status: 'sent', message_report: 'delivered' }])
  })
})
