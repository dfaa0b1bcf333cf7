import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { addUser } from '../../server/db/accounts.ts'
import { consoleSms } from '../../server/plugins/sms.ts'
import { createTestApp, type TestApp } from './test-app.ts'

const owner = '01012345678'
const secret = 'webhook-secret-0123456789'

describe('console SMS', () => {
  it('prints exactly one line, "SMS to <phone>: <text>", to standard output', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    try {
      await consoleSms.send(owner, '인증번호 1234')
      expect(write).toHaveBeenCalledTimes(1)
      expect(write).toHaveBeenCalledWith('SMS to 01012345678: 인증번호 1234\n')
    } finally {
      write.mockRestore()
    }
  })

  it('is what the server uses by default, and the line holds the code', async () => {
    const app = await createTestApp()
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    try {
      await addUser(app.db, { phone: owner, name: '김사장' })
      await app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone: owner } })
      const lines = write.mock.calls
        .map(([chunk]) => String(chunk))
        .filter((line) => line.startsWith('SMS to'))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^SMS to 01012345678: .*\b\d{4}\b.*\n$/)
    } finally {
      write.mockRestore()
      await app.close()
    }
  })
})

describe('webhook SMS', () => {
  let receiver: Server
  let url: string
  let answerStatus = 200
  const received: { headers: IncomingMessage['headers']; body: unknown }[] = []

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => {
        body += chunk
      })
      request.on('end', () => {
        received.push({ headers: request.headers, body: JSON.parse(body) })
        response.writeHead(answerStatus).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sms`
  })
  afterAll(() => new Promise((resolve) => receiver.close(resolve)))

  async function webhookApp(webhookUrl: string): Promise<TestApp> {
    const app = await createTestApp({
      env: { SMS_PROVIDER: 'webhook', SMS_WEBHOOK_URL: webhookUrl, SMS_WEBHOOK_SECRET: secret },
    })
    await addUser(app.db, { phone: owner, name: '김사장' })
    return app
  }
  const requestCode = (app: TestApp) =>
    app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone: owner } })

  it('POSTs { to, text } as JSON with the shared secret, and the code signs in', async () => {
    const app = await webhookApp(url)
    try {
      received.length = 0
      answerStatus = 200
      expect((await requestCode(app)).statusCode).toBe(200)
      expect(received).toHaveLength(1)
      const [message] = received
      expect(message?.headers['content-type']).toBe('application/json')
      expect(message?.headers['x-webhook-secret']).toBe(secret)
      const body = message?.body as { to: string; text: string }
      expect(body.to).toBe(owner)
      const code = body.text.match(/\b(\d{4})\b/)?.[1] ?? ''
      const signed = await app.inject({
        method: 'POST',
        url: '/api/v0/user/sign',
        payload: { phone: owner, code },
      })
      expect(signed.statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })

  it('answers 502 with a Korean message when the gateway fails, and the unsent code is void', async () => {
    const app = await webhookApp(url)
    try {
      received.length = 0
      answerStatus = 500
      const response = await requestCode(app)
      expect(response.statusCode).toBe(502)
      expect(response.json()).toEqual({
        message: '인증번호 문자를 보내지 못했습니다. 잠시 후 다시 시도해 주세요.',
      })
      const sent = received[0]?.body as { text: string } | undefined
      const code = sent?.text.match(/\b(\d{4})\b/)?.[1] ?? ''
      const signed = await app.inject({
        method: 'POST',
        url: '/api/v0/user/sign',
        payload: { phone: owner, code },
      })
      expect(signed.statusCode).toBe(401)
    } finally {
      answerStatus = 200
      await app.close()
    }
  })

  it('answers 502 when the gateway cannot be reached', async () => {
    const app = await webhookApp('http://127.0.0.1:9/unreachable')
    try {
      expect((await requestCode(app)).statusCode).toBe(502)
    } finally {
      await app.close()
    }
  })
})
