import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { addUser } from '../../server/db/accounts.ts'
import { consoleSms } from '../../server/sign-in/sms.ts'
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
  /** What the gateway answers, and after how long. */
  let answerStatus = 200
  let answerDelayMs = 0
  const received: { headers: IncomingMessage['headers']; body: unknown }[] = []
  /** How many requests the gateway has answered. */
  let answered = 0

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => {
        body += chunk
      })
      request.on('end', () => {
        received.push({ headers: request.headers, body: JSON.parse(body) })
        setTimeout(() => {
          answered++
          response.writeHead(answerStatus).end()
        }, answerDelayMs)
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sms`
  })
  afterAll(() => new Promise((resolve) => receiver.close(resolve)))
  beforeEach(() => {
    received.length = 0
    answered = 0
    answerStatus = 200
    answerDelayMs = 0
  })

  const fastRetry = { attempts: 3, firstDelayMs: 20, closeWaitMs: 2_000 }

  async function webhookApp(webhookUrl: string, lines: string[] = []): Promise<TestApp> {
    const app = await createTestApp({
      env: { SMS_PROVIDER: 'webhook', SMS_WEBHOOK_URL: webhookUrl, SMS_WEBHOOK_SECRET: secret },
      logStream: { write: (line) => lines.push(line) },
      smsRetry: fastRetry,
    })
    await addUser(app.db, { phone: owner, name: '김사장' })
    return app
  }
  const requestCode = (app: TestApp, phone = owner) =>
    app.inject({ method: 'PUT', url: '/api/v0/user/phone', payload: { phone } })
  const until = async (condition: () => boolean, ms = 5_000) => {
    const deadline = Date.now() + ms
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('timed out')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
  const sentCode = (index = 0) =>
    (received[index]?.body as { text?: string } | undefined)?.text?.match(/\b(\d{4})\b/)?.[1] ?? ''

  it('POSTs { to, text } as JSON with the shared secret, and the code signs in', async () => {
    const app = await webhookApp(url)
    try {
      expect((await requestCode(app)).statusCode).toBe(200)
      await until(() => received.length === 1)
      const [message] = received
      expect(message?.headers['content-type']).toBe('application/json')
      expect(message?.headers['x-webhook-secret']).toBe(secret)
      const body = message?.body as { to: string; text: string }
      expect(body.to).toBe(owner)
      const signed = await app.inject({
        method: 'POST',
        url: '/api/v0/user/sign',
        payload: { phone: owner, code: sentCode() },
      })
      expect(signed.statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })

  it('with a slow gateway, answers registered and unregistered numbers before the gateway answers', async () => {
    const app = await webhookApp(url)
    try {
      answerDelayMs = 300
      await requestCode(app, '01077776666') // warms the route up, so the figures below compare
      const started = performance.now()
      const registered = await requestCode(app)
      const registeredMs = performance.now() - started
      // The code was handed to the gateway, which has not answered yet.
      await until(() => received.length === 1)
      expect(answered).toBe(0)
      const again = performance.now()
      const unregistered = await requestCode(app, '01099998888')
      const unregisteredMs = performance.now() - again
      expect(answered).toBe(0)
      console.info(
        `code request with a 300 ms gateway: registered ${registeredMs.toFixed(1)} ms, unregistered ${unregisteredMs.toFixed(1)} ms`,
      )
      expect(registered.statusCode).toBe(200)
      expect(unregistered.statusCode).toBe(200)
      expect(unregistered.body).toBe(registered.body)
      await until(() => answered === 1)
    } finally {
      await app.close()
    }
  })

  it('with a failing gateway, answers 200 for any number, retries with backoff, and logs the failure without the code', async () => {
    const lines: string[] = []
    const app = await webhookApp(url, lines)
    try {
      answerStatus = 500
      const registered = await requestCode(app)
      const unregistered = await requestCode(app, '01099998888')
      expect(registered.statusCode).toBe(200)
      expect(unregistered.statusCode).toBe(200)
      expect(unregistered.body).toBe(registered.body)
      await until(() => lines.some((line) => line.includes('gave up')))
      // Three tries in all (the configured bound), each with the same message.
      expect(received).toHaveLength(3)
      expect(new Set(received.map((r) => JSON.stringify(r.body))).size).toBe(1)
      const failures = lines
        .map((line) => JSON.parse(line))
        .filter((entry) => /sign-in code failed/.test(entry.msg))
      expect(failures.map((entry) => entry.level)).toEqual([40, 40, 50])
      expect(failures[2]).toMatchObject({
        to: '*******5678',
        attempts: 3,
        reason: 'SMS webhook answered 500',
      })
      // Neither the message nor the code is logged (the failure entries, less the logger's own fields).
      const text = (received[0]?.body as { text?: string } | undefined)?.text ?? 'no message was sent'
      expect(lines.join('\n')).not.toContain(text)
      expect(lines.join('\n')).not.toContain(owner)
      const said = failures.map(({ time, pid, hostname, ...rest }) => JSON.stringify(rest)).join('\n')
      expect(said).not.toMatch(new RegExp(`\\b${sentCode()}\\b`))
    } finally {
      await app.close()
    }
  })

  it('answers 200 when the gateway cannot be reached, and logs it', async () => {
    const lines: string[] = []
    const app = await webhookApp('http://127.0.0.1:9/unreachable', lines)
    try {
      expect((await requestCode(app)).statusCode).toBe(200)
      await until(() => lines.some((line) => line.includes('gave up')))
      expect(lines.filter((line) => line.includes('will retry'))).toHaveLength(2)
    } finally {
      await app.close()
    }
  })

  it('closing the server waits for a send in flight', async () => {
    const app = await webhookApp(url)
    answerDelayMs = 300
    expect((await requestCode(app)).statusCode).toBe(200)
    await until(() => received.length === 1)
    await app.close()
    expect(answered).toBe(1)
  })

  it('closing the server waits no longer than its bound for a gateway that never answers', async () => {
    const app = await webhookApp(url)
    answerDelayMs = 60_000
    expect((await requestCode(app)).statusCode).toBe(200)
    await until(() => received.length === 1)
    const started = performance.now()
    await app.close()
    const waited = performance.now() - started
    console.info(
      `close with a send hanging: waited ${waited.toFixed(0)} ms (bound ${fastRetry.closeWaitMs} ms)`,
    )
    expect(waited).toBeGreaterThanOrEqual(fastRetry.closeWaitMs - 50)
    expect(answered).toBe(0)
  })
})
