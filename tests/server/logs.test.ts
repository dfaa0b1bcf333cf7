// What the server writes to its log: never a refresh token, a phone number or a sign-in code,
// however the client spells the address and whatever fails.
import http from 'node:http'
import net from 'node:net'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { addUser } from '../../server/db/accounts.ts'
import { redactUrl } from '../../server/server-options.ts'
import { capturedSms, createTestApp, resetDatabase, signIn, type TestApp, testClock } from './test-app.ts'

const owner = '01099998888'
const clock = testClock()
const sms = capturedSms()
const lines: string[] = []
let app: TestApp

beforeAll(async () => {
  app = await createTestApp({
    clock,
    sms,
    env: { LOG_LEVEL: 'trace' },
    logStream: { write: (line) => lines.push(line) },
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(() => app.close())

/** One request over a real socket, the path sent exactly as written (`#` included). */
function send(method: string, path: string) {
  const { port } = app.server.address() as net.AddressInfo
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path }, (response) => {
      let body = ''
      response.on('data', (chunk) => {
        body += chunk
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    request.on('error', reject)
    request.end()
  })
}
beforeEach(async () => {
  await resetDatabase(app)
  clock.set()
  sms.clear()
  await addUser(app.db, { phone: owner, name: '김사장' })
  lines.length = 0
})

const log = () => lines.join('\n')

describe('redactUrl', () => {
  it.each([
    ['/api/v0/user/sign?token=abc', '/api/v0/user/sign?token=[redacted]'],
    ['/api/v0/user/sign?%74oken=abc', '/api/v0/user/sign?%74oken=[redacted]'],
    ['/api/v0/user/sign?tok%65n=abc&x=1', '/api/v0/user/sign?tok%65n=[redacted]&x=[redacted]'],
    ['/api/v0/user/sign#token=abc', '/api/v0/user/sign#token=[redacted]'],
    ['/api/v0/user/sign?abc', '/api/v0/user/sign?[redacted]'],
    ['/api/v0/user/sign?%E0%A4%A=abc', '/api/v0/user/sign?%E0%A4%A=[redacted]'],
    // The attempt key of a refresh retry is a secret too.
    ['/api/v0/user/sign?token=abc&retry=def', '/api/v0/user/sign?token=[redacted]&retry=[redacted]'],
    ['/api/v0/store/1/usage?year=2026', '/api/v0/store/1/usage?year=2026'],
    ['/api/v0/store/1/usage?ye%61r=2026&', '/api/v0/store/1/usage?ye%61r=2026&'],
    ['/api/v0/user', '/api/v0/user'],
  ])('writes %s as %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged)
  })
})

describe('request logs', () => {
  it.each([
    ['?token=', (token: string) => `/api/v0/user/sign?token=${token}`],
    ['?%74oken=', (token: string) => `/api/v0/user/sign?%74oken=${token}`],
    ['?tok%65n=', (token: string) => `/api/v0/user/sign?tok%65n=${token}`],
    ['?%74%6f%6b%65%6e=', (token: string) => `/api/v0/user/sign?%74%6f%6b%65%6e=${token}`],
    ['#token=', (token: string) => `/api/v0/user/sign#token=${token}`],
  ])('never hold a refresh token sent as %s, which the API accepts', async (_, address) => {
    const { refresh } = await signIn(app, sms, owner)
    lines.length = 0
    const rotated = await send('GET', address(refresh))
    expect(rotated.status).toBe(200)
    const next = JSON.parse(rotated.body).token.refresh as string
    expect((await send('DELETE', address(next))).status).toBe(204)
    expect((await send('GET', address(next))).status).toBe(401)
    expect(log()).toContain('/api/v0/user/sign')
    expect(log()).not.toContain(refresh)
    expect(log()).not.toContain(next)
  })

  it('never hold the phone number or the parameters of a database query that failed', async () => {
    await app.db.execute(sql`alter table phone_locks rename to phone_locks_gone`)
    try {
      const response = await app.inject({
        method: 'PUT',
        url: '/api/v0/user/phone',
        payload: { phone: owner },
      })
      expect(response.statusCode).toBe(500)
    } finally {
      await app.db.execute(sql`alter table phone_locks_gone rename to phone_locks`)
    }
    expect(log()).toContain('request failed')
    expect(log()).toContain('Failed query: select')
    expect(log()).not.toContain(owner)
  })

  it('never hold the raw bytes of a request the HTTP parser refused, even at trace level', async () => {
    const { port } = app.server.address() as net.AddressInfo
    const secret = 'a-refresh-token-in-a-broken-request'
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(`GET /api/v0/user/sign?token=${secret} HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`),
      )
      socket.on('data', () => {})
      socket.on('close', () => resolve())
    })
    expect(log()).toContain('client error')
    expect(log()).not.toContain('rawPacket')
    expect(log()).not.toContain(secret)
  })
})
