// SOLAPI and 알림톡 settings: read from the environment, and half a configuration refused at start with
// a message naming what is missing or set for nothing.
import { describe, expect, it } from 'vitest'
import { AlertKind } from '../../../contract/api.ts'
import { readConfig } from '../../../server/config.ts'
import { kakaoTemplateVariables } from '../../../server/messages/config.ts'

const solapi = { SOLAPI_API_KEY: 'NCSTESTKEY0000001', SOLAPI_API_SECRET: 'TESTSECRET0123456789ABCDEFGHIJKL' }
const full = { ...solapi, SOLAPI_SENDER: '0212345678' }

describe('SOLAPI and 알림톡 settings', () => {
  it('none by default: console SMS, no provider', () => {
    expect(readConfig({}).messages).toEqual({
      solapi: undefined,
      kakao: undefined,
      perUserPerDay: 20,
      baseUrl: undefined,
    })
  })

  it('SMS_PROVIDER=solapi with the key, the secret and the sender sends the sign-in codes through SOLAPI', () => {
    const config = readConfig({ SMS_PROVIDER: 'solapi', ...full })
    expect(config.sms).toEqual({ provider: 'solapi' })
    expect(config.messages).toEqual({
      solapi: { apiKey: full.SOLAPI_API_KEY, apiSecret: full.SOLAPI_API_SECRET, sender: '0212345678' },
      kakao: undefined,
      perUserPerDay: 20,
      baseUrl: undefined,
    })
  })

  it('KAKAO_PFID with some kinds’ templates gives 알림톡 for those kinds, whatever SMS_PROVIDER is', () => {
    const config = readConfig({
      ...full,
      KAKAO_PFID: 'KA01PF2026TESTCHANNEL',
      KAKAO_TEMPLATE_MACHINE_ERROR: 'KA01TP2026MACHINEERROR',
      KAKAO_TEMPLATE_MORNING_SUMMARY: 'KA01TP2026MORNING',
    })
    expect(config.sms).toEqual({ provider: 'console' })
    expect(config.messages.solapi?.sender).toBe('0212345678')
    expect(config.messages.kakao).toEqual({
      pfId: 'KA01PF2026TESTCHANNEL',
      templates: { machineError: 'KA01TP2026MACHINEERROR', morningSummary: 'KA01TP2026MORNING' },
    })
  })

  it('has one template variable per alert kind of the contract', () => {
    expect(kakaoTemplateVariables.map(([, kind]) => kind).sort()).toEqual(
      AlertKind.anyOf.map((literal) => literal.const).sort(),
    )
  })

  it.each([
    [
      'a key without its secret',
      { SMS_PROVIDER: 'solapi', SOLAPI_API_KEY: solapi.SOLAPI_API_KEY, SOLAPI_SENDER: '0212345678' },
      /SMS_PROVIDER=solapi needs SOLAPI_API_SECRET:/,
    ],
    [
      'the solapi provider without a sender',
      { SMS_PROVIDER: 'solapi', ...solapi },
      /SMS_PROVIDER=solapi needs SOLAPI_SENDER:/,
    ],
    [
      'the solapi provider with nothing else',
      { SMS_PROVIDER: 'solapi' },
      /needs SOLAPI_API_KEY, SOLAPI_API_SECRET, SOLAPI_SENDER/,
    ],
    [
      'a KAKAO_PFID without any template',
      { ...full, KAKAO_PFID: 'KA01PF2026TESTCHANNEL' },
      /KAKAO_PFID is set but no 알림톡 template is: .*KAKAO_TEMPLATE_QUIET, .*KAKAO_TEMPLATE_MORNING_SUMMARY/,
    ],
    [
      'templates without the PFID',
      { ...full, SMS_PROVIDER: 'solapi', KAKAO_TEMPLATE_QUIET: 'T1', KAKAO_TEMPLATE_DEVICE_OFFLINE: 'T2' },
      /KAKAO_TEMPLATE_QUIET, KAKAO_TEMPLATE_DEVICE_OFFLINE set but KAKAO_PFID is not/,
    ],
    [
      'a 알림톡 channel without the credentials',
      { KAKAO_PFID: 'KA01PF2026TESTCHANNEL', KAKAO_TEMPLATE_QUIET: 'T1' },
      /KAKAO_PFID needs SOLAPI_API_KEY, SOLAPI_API_SECRET, SOLAPI_SENDER/,
    ],
    [
      'credentials that nothing uses',
      full,
      /SOLAPI_API_KEY, SOLAPI_API_SECRET, SOLAPI_SENDER set but nothing sends through SOLAPI/,
    ],
    [
      'a stand-in address for SOLAPI in production',
      {
        NODE_ENV: 'production',
        JWT_SECRET: 'x'.repeat(32),
        VAPID_SUBJECT: 'mailto:owner@example.co.kr',
        SMS_PROVIDER: 'solapi',
        ...full,
        SOLAPI_BASE_URL: 'http://127.0.0.1:9999',
      },
      /SOLAPI_BASE_URL is for tests only/,
    ],
    ['a daily message cap of none', { MESSAGES_PER_USER_PER_DAY: '0' }, /MESSAGES_PER_USER_PER_DAY="0"/],
    [
      'a sender with hyphens',
      { SMS_PROVIDER: 'solapi', ...solapi, SOLAPI_SENDER: '02-1234-5678' },
      /SOLAPI_SENDER="02-1234-5678"/,
    ],
  ])('refuses %s, saying what to set', (_, env, message) => {
    expect(() => readConfig(env)).toThrowError(message)
  })
})
