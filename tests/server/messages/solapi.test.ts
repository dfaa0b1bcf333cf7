// The SOLAPI transport against the provider stood in (solapi-stand-in.ts): what a real provider would
// receive, and how each of its answers maps to sent, refused or failed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { solapiTransport } from '../../../server/messages/solapi.ts'
import {
  accepted,
  apiKey,
  apiSecret,
  checkedAuthorization,
  notTaken,
  pfId,
  providerError,
  sender,
  solapiStandIn,
} from './solapi-stand-in.ts'

const owner = '01012345678'
const provider = solapiStandIn()
beforeEach(() => provider.start())
afterEach(() => provider.stop())

const transport = () => solapiTransport({ apiKey, apiSecret, sender, pfId })
const fallbackText = '[빨래방 매출] 역삼점 W3 세탁기가 오류를 알렸습니다 (E21).'

describe('the SOLAPI transport', () => {
  it('signs each request as SOLAPI checks it: our key, a fresh date and salt, HMAC-SHA256(secret, date + salt)', async () => {
    await transport().sms(owner, '첫 번째')
    await transport().sms(owner, '두 번째')
    expect(provider.received).toHaveLength(2)
    const [first, second] = provider.received.map((r) => checkedAuthorization(r.authorization))
    for (const auth of [first, second]) {
      expect(auth?.key).toBe(apiKey)
      expect(auth?.signature).toBe(auth?.expected)
      expect(auth?.salt).toMatch(/^[0-9A-Za-z]{32}$/)
      // The provider refuses a request more than 15 minutes off its clock.
      expect(auth?.skewMs).toBeLessThan(60_000)
    }
    expect(first?.salt).not.toBe(second?.salt)
    // A signature made with another secret is not what we send.
    const other = checkedAuthorization(
      provider.received[0]?.authorization ?? '',
      'ANOTHERSECRET0123456789ABCDEFGHI',
    )
    expect(other.signature).not.toBe(other.expected)
  })

  it('an SMS carries the recipient, the registered sender and the text, nothing else, and answers sent with the ids', async () => {
    const outcome = await transport().sms(owner, '[빨래방 매출] 인증번호 1234')
    expect(provider.received[0]?.body.messages).toEqual([
      { to: owner, from: sender, text: '[빨래방 매출] 인증번호 1234', type: 'SMS' },
    ])
    expect(Object.keys(provider.received[0]?.body ?? {}).sort()).toEqual([
      'agent',
      'messages',
      'showMessageList',
    ])
    expect(outcome).toEqual({
      status: 'sent',
      channel: 'sms',
      groupId: 'G4V20261202000000TEST',
      messageId: 'M4V20261202000000TEST',
    })
  })

  it('over 90 bytes in EUC-KR the text goes as LMS (a Hangul syllable is 2 bytes)', async () => {
    const t = transport()
    const at90 = await t.sms(owner, '가'.repeat(45))
    const at92 = await t.sms(owner, '가'.repeat(46))
    const ascii90 = await t.sms(owner, 'a'.repeat(90))
    expect(provider.received.map((r) => r.body.messages[0]?.type)).toEqual(['SMS', 'LMS', 'SMS'])
    expect([at90.channel, at92.channel, ascii90.channel]).toEqual(['sms', 'lms', 'sms'])
  })

  it('a 알림톡 carries the channel, the template, its variables and the fallback flag', async () => {
    const t = transport()
    const withFallback = await t.alimtalk(
      owner,
      'KA01TP2026MACHINEERROR',
      { store: '역삼점', machine: 'W3' },
      { smsFallback: true, fallbackText },
    )
    await t.alimtalk(
      owner,
      'KA01TP2026MACHINEERROR',
      { store: '역삼점', machine: 'W3' },
      {
        smsFallback: false,
        fallbackText,
      },
    )
    const [first, second] = provider.received.map((r) => r.body.messages[0])
    expect(first).toEqual({
      to: owner,
      from: sender,
      text: fallbackText,
      kakaoOptions: {
        pfId,
        templateId: 'KA01TP2026MACHINEERROR',
        variables: { '#{store}': '역삼점', '#{machine}': 'W3' },
        disableSms: false,
      },
    })
    expect(second).toMatchObject({ kakaoOptions: { disableSms: true } })
    expect(withFallback).toMatchObject({ status: 'sent', channel: 'alimtalk' })
  })
})

describe("the provider's answers", () => {
  it('a 5xx is failed (the caller retries with backoff), after one request', async () => {
    provider.answer(providerError(500, 'InternalError', '서버 내부 오류'))
    expect(await transport().sms(owner, '인증번호 1234')).toMatchObject({
      status: 'failed',
      code: 'InternalError',
      httpStatus: 500,
    })
    expect(provider.received).toHaveLength(1)
  })

  it('a 503 is failed too, once the SDK has tried it again 3 times at once', async () => {
    provider.answerAlways({ statusCode: 503, data: {} })
    expect(await transport().sms(owner, '인증번호 1234')).toMatchObject({
      status: 'failed',
      code: 'RequestFailedAfterRetryError',
    })
    expect(provider.received).toHaveLength(4)
  })

  it('no answer at all (the network) is failed', async () => {
    provider.answer({ error: new Error('socket hang up') })
    expect(await transport().sms(owner, '인증번호 1234')).toMatchObject({
      status: 'failed',
      code: 'NetworkError',
    })
  })

  it('a 429 (too many requests) is failed: waiting cures it', async () => {
    provider.answer(providerError(429, 'TooManyRequests', '요청이 너무 많습니다'))
    expect(await transport().sms(owner, '인증번호 1234')).toMatchObject({ status: 'failed', httpStatus: 429 })
  })

  // The codes and texts below are of the kind SOLAPI answers; the reason is named from the HTTP status
  // and the words, so a code renamed by the provider still lands on its reason.
  it.each([
    ['a bad key (401)', providerError(401, 'InvalidApiKey', 'Invalid API Key'), 'badKey', 'InvalidApiKey'],
    [
      'a signature refused (403)',
      providerError(403, 'SignatureDoesNotMatch', '서명 불일치'),
      'badKey',
      'SignatureDoesNotMatch',
    ],
    [
      'no balance (400)',
      providerError(400, 'NotEnoughBalance', '잔액이 부족합니다.'),
      'insufficientBalance',
      'NotEnoughBalance',
    ],
    ['an unregistered sender (not taken)', notTaken('1062', '발신번호 미등록'), 'unregisteredSender', '1062'],
    [
      'a template not approved (not taken)',
      notTaken('3034', '검수 완료되지 않은 템플릿입니다.'),
      'templateNotApproved',
      '3034',
    ],
    [
      'a bad recipient (400)',
      providerError(400, 'ValidationError', '수신번호 형식이 올바르지 않습니다.'),
      'badRecipient',
      'ValidationError',
    ],
    ['anything else (400)', providerError(400, 'Something', '알 수 없는 오류'), 'other', 'Something'],
  ])(
    '%s is refused with its named reason and the provider code, after one request',
    async (_, answer, reason, code) => {
      provider.answer(answer)
      expect(await transport().sms(owner, '인증번호 1234')).toMatchObject({ status: 'refused', reason, code })
      expect(provider.received).toHaveLength(1)
    },
  )

  it("the provider's text is kept short and its numbers masked", async () => {
    provider.answer(providerError(400, 'ValidationError', `수신번호 ${owner} 형식 오류 ${'x'.repeat(300)}`))
    const outcome = await transport().sms(owner, '인증번호 1234')
    expect(outcome.status === 'refused' && outcome.detail).toMatch(/^수신번호 \*{7}5678 형식 오류 x+$/)
    expect(outcome.status === 'refused' && outcome.detail.length).toBe(200)
  })
})

describe('a refused 알림톡', () => {
  const machineError = (smsFallback: boolean) =>
    transport().alimtalk(owner, 'KA01TP2026MACHINEERROR', { store: '역삼점' }, { smsFallback, fallbackText })

  it('falls back to an SMS of the fallback text when the person allowed it', async () => {
    provider.answer(
      notTaken('3034', '검수 완료되지 않은 템플릿입니다.'),
      accepted('G4V2026SMS', 'M4V2026SMS'),
    )
    const outcome = await machineError(true)
    expect(provider.received).toHaveLength(2)
    expect(provider.received[1]?.body.messages).toEqual([
      { to: owner, from: sender, text: fallbackText, type: 'SMS' },
    ])
    expect(outcome).toEqual({
      status: 'sent',
      channel: 'sms',
      groupId: 'G4V2026SMS',
      messageId: 'M4V2026SMS',
      fellBackFrom: { reason: 'templateNotApproved', code: '3034' },
    })
  })

  it('stays refused without the fallback, and when an SMS would be refused as well (no balance)', async () => {
    provider.answer(notTaken('3034', '검수 완료되지 않은 템플릿입니다.'))
    expect(await machineError(false)).toMatchObject({ status: 'refused', reason: 'templateNotApproved' })
    provider.answer(providerError(400, 'NotEnoughBalance', '잔액이 부족합니다.'))
    expect(await machineError(true)).toMatchObject({ status: 'refused', reason: 'insufficientBalance' })
    expect(provider.received).toHaveLength(2)
  })

  it('a failed 알림톡 (5xx) is not sent as an SMS: the caller retries it', async () => {
    provider.answer(providerError(502, 'BadGateway', 'Bad Gateway'))
    expect(await machineError(true)).toMatchObject({ status: 'failed', channel: 'alimtalk' })
    expect(provider.received).toHaveLength(1)
  })
})

describe('delivery reports (GET /messages/v4/list by message id)', () => {
  it('asks for the messages by id, signed, in one request, and reads each one’s final status', async () => {
    provider.report('M4V1', '4000')
    provider.report('M4V2', '3104')
    provider.report('M4V4', '4000', { type: 'LMS', replacement: true })
    provider.report('M4V5', '4000', { replacement: true })
    const reports = await transport().reports(['M4V1', 'M4V2', 'M4V3', 'M4V4', 'M4V5'])
    expect(provider.queried).toHaveLength(1)
    const [query] = provider.queried
    // The SDK's own query: each id repeated (no indices), the page as large as the ids asked.
    expect(query?.path).toBe(
      '/messages/v4/list?limit=5&messageIds=M4V1&messageIds=M4V2&messageIds=M4V3&messageIds=M4V4&messageIds=M4V5',
    )
    const auth = checkedAuthorization(query?.authorization ?? '')
    expect(auth.key).toBe(apiKey)
    expect(auth.signature).toBe(auth.expected)
    expect(reports instanceof Map && Object.fromEntries(reports)).toEqual({
      M4V1: { status: 'delivered', channel: 'alimtalk' },
      M4V2: { status: 'undelivered', channel: 'alimtalk', code: '3104' },
      M4V3: { status: 'waiting' },
      M4V4: { status: 'delivered', channel: 'lms' },
      M4V5: { status: 'delivered', channel: 'sms' },
    })
    expect(provider.received).toHaveLength(0)
  })

  it.each([
    ['2000', { status: 'waiting' }],
    ['3000', { status: 'waiting' }],
    ['4000', { status: 'delivered', channel: 'alimtalk' }],
    ['3043', { status: 'undelivered', channel: 'alimtalk', code: '3043' }],
    ['2230', { status: 'undelivered', channel: 'alimtalk', code: '2230' }],
  ])('status %s is %o', async (statusCode, expected) => {
    provider.report('M4V9', statusCode)
    expect((await transport().reports(['M4V9'])) as Map<string, unknown>).toEqual(
      new Map([['M4V9', expected]]),
    )
  })

  it('a query the provider fails is answered as failed, not thrown', async () => {
    provider.answerQuery(providerError(500, 'InternalError', 'server error'))
    expect(await transport().reports(['M4V1'])).toMatchObject({ status: 'failed', code: 'InternalError' })
    provider.answerQuery(providerError(401, 'InvalidApiKey', 'Invalid API Key'))
    expect(await transport().reports(['M4V1'])).toMatchObject({ status: 'refused', reason: 'badKey' })
  })
})
