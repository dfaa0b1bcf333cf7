// SMS_PROVIDER=solapi: the sign-in code goes out by SMS through SOLAPI (stood in, solapi-stand-in.ts),
// in the background, retried on a failure and not on a refusal; a provider's failure is logged once
// and kept for `npm run admin -- messages`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runAdmin } from '../../../server/admin.ts'
import { addUser } from '../../../server/db/accounts.ts'
import { sharedTestApp, type TestApp } from '../test-app.ts'
import {
  apiKey,
  apiSecret,
  checkedAuthorization,
  providerError,
  sender,
  solapiStandIn,
} from './solapi-stand-in.ts'

const owner = '01012345678'
const provider = solapiStandIn()
// Stood in for the whole file, and put away only after the server has closed (after hooks run in
// reverse): a send still in flight can never reach the real address.
beforeAll(() => provider.start())
afterAll(() => provider.stop())
beforeEach(() => provider.reset())

/** What the server logged, one JSON line each, since the test began. */
const lines: string[] = []
const current = sharedTestApp({
  env: {
    SMS_PROVIDER: 'solapi',
    SOLAPI_API_KEY: apiKey,
    SOLAPI_API_SECRET: apiSecret,
    SOLAPI_SENDER: sender,
  },
  logStream: { write: (line) => lines.push(line) },
  smsRetry: { attempts: 3, firstDelayMs: 20, closeWaitMs: 2_000 },
  setup: async (app) => {
    lines.length = 0
    await addUser(app.db, { phone: owner, name: '김사장' })
  },
})

const requestCode = (app: TestApp, phone = owner) =>
  app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone } })

const until = async (condition: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const sentText = (index = 0) => String(provider.received[index]?.body.messages[0]?.text ?? '')
const sentCode = (index = 0) => sentText(index).match(/\b(\d{4})\b/)?.[1] ?? ''

async function adminMessages(app: TestApp) {
  const lines: string[] = []
  const code = await runAdmin(['messages'], {
    db: app.db,
    imageDir: '/nonexistent',
    print: (l) => lines.push(l),
  })
  return { code, lines }
}

describe('sign-in codes through SOLAPI', () => {
  it('sends the code by SMS to the number, signed with our key, and the code signs in', async () => {
    const { app } = current
    expect((await requestCode(app)).statusCode).toBe(200)
    await until(() => provider.received.length === 1)
    const [message] = provider.received[0]?.body.messages ?? []
    expect(message).toMatchObject({ to: owner, from: sender, type: 'SMS' })
    const auth = checkedAuthorization(provider.received[0]?.authorization ?? '')
    expect(auth.signature).toBe(auth.expected)
    const signed = await app.inject({
      method: 'POST',
      url: '/api/v0/user/sign',
      payload: { phone: owner, code: sentCode() },
    })
    expect(signed.statusCode).toBe(200)
    // An unregistered number gets the same answer and no message.
    expect((await requestCode(app, '01099998888')).statusCode).toBe(200)
    expect(provider.received).toHaveLength(1)
  })

  it('a 5xx is retried with backoff and the code arrives at the third try; nothing is kept as a failure', async () => {
    const { app } = current
    provider.answer(providerError(500, 'InternalError', '오류'), providerError(502, 'BadGateway', '오류'))
    expect((await requestCode(app)).statusCode).toBe(200)
    await until(() => provider.received.length === 3)
    expect(new Set(provider.received.map((r) => sentText(provider.received.indexOf(r)))).size).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(provider.received).toHaveLength(3)
    expect((await adminMessages(app)).lines).toEqual(['no message failures'])
  })

  it('a refusal (a bad key) is not retried, is logged once with the provider code, masked, and listed by the admin command', async () => {
    const { app } = current
    provider.answerAlways(providerError(401, 'InvalidApiKey', 'Invalid API Key'))
    expect((await requestCode(app)).statusCode).toBe(200)
    await until(() => lines.some((line) => line.includes('refused a message')))
    // Well past the retries' waits (20, 40 ms): still the one request.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(provider.received).toHaveLength(1)
    const logged = lines
      .map((line) => JSON.parse(line))
      .filter((entry) => /message|sign-in code/.test(entry.msg))
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({
      level: 50,
      purpose: 'signIn',
      channel: 'sms',
      outcome: 'refused',
      reason: 'badKey',
      code: 'InvalidApiKey',
      httpStatus: 401,
      recipient: '*******5678',
      attempts: 1,
    })
    const all = lines.join('\n')
    expect(all).not.toContain(owner)
    expect(all).not.toContain(sentText())
    const { code, lines: listed } = await adminMessages(app)
    expect(code).toBe(0)
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}signIn {2}sms {2}refused \(badKey\) {2}code InvalidApiKey \(HTTP 401\) {2}to \*{7}5678 {2}Invalid API Key$/,
    )
  })

  it('a failure given up on after the retries is kept once, with its tries', async () => {
    const { app } = current
    provider.answerAlways(providerError(500, 'InternalError', '서버 오류'))
    expect((await requestCode(app)).statusCode).toBe(200)
    await until(() => lines.some((line) => line.includes('gave up')))
    expect(provider.received).toHaveLength(3)
    expect(lines.filter((line) => line.includes('will retry'))).toHaveLength(2)
    const { lines: listed } = await adminMessages(app)
    expect(listed).toHaveLength(1)
    expect(listed[0]).toContain('failed after 3 tries  code InternalError (HTTP 500)')
  })
})
