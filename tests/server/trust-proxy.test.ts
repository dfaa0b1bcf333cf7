// TRUST_PROXY decides which X-Forwarded-For entries name the client: the rate limits count by that
// address, so a client that can put its own entries in front of the proxy's must not be believed.
import { afterAll, describe, expect, it } from 'vitest'
import { readConfig } from '../../server/config.ts'
import { createTestApp, type TestApp } from './test-app.ts'

const apps: TestApp[] = []
afterAll(() => Promise.all(apps.map((app) => app.close())))

async function appTrusting(trustProxy: string) {
  const lines: string[] = []
  const app = await createTestApp({
    env: { TRUST_PROXY: trustProxy, CODE_REQUESTS_PER_IP_PER_HOUR: '2' },
    logStream: { write: (line) => lines.push(line) },
  })
  apps.push(app)
  /** The address the server takes for the client of a request from `peer` carrying `forwardedFor`. */
  async function clientOf(peer: string, forwardedFor?: string) {
    lines.length = 0
    await app.inject({
      method: 'GET',
      url: '/api/nothing',
      remoteAddress: peer,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    })
    const incoming = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'incoming request')
    return incoming?.req?.remoteAddress as string
  }
  const requestCode = (peer: string, forwardedFor: string, phone: string) =>
    app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      payload: { phone },
      remoteAddress: peer,
      headers: { 'x-forwarded-for': forwardedFor },
    })
  return { clientOf, requestCode }
}

describe('TRUST_PROXY', () => {
  it('0 (the default) believes no header: the client is the socket peer', async () => {
    const { clientOf } = await appTrusting('0')
    expect(await clientOf('198.51.100.7', '6.6.6.6')).toBe('198.51.100.7')
  })

  it('1 believes one hop: the address the proxy appended, not the ones the client sent before it', async () => {
    const { clientOf, requestCode } = await appTrusting('1')
    expect(await clientOf('10.0.0.2', '203.0.113.5')).toBe('203.0.113.5')
    expect(await clientOf('10.0.0.2', '6.6.6.6, 7.7.7.7, 203.0.113.5')).toBe('203.0.113.5')
    // Spoofed entries do not buy the client more code requests: its limit here is 2 an hour.
    expect((await requestCode('10.0.0.2', '1.1.1.1, 203.0.113.5', '01011110001')).statusCode).toBe(200)
    expect((await requestCode('10.0.0.2', '2.2.2.2, 203.0.113.5', '01011110002')).statusCode).toBe(200)
    expect((await requestCode('10.0.0.2', '3.3.3.3, 203.0.113.5', '01011110003')).statusCode).toBe(429)
    expect((await requestCode('10.0.0.2', '203.0.113.6', '01011110004')).statusCode).toBe(200)
  })

  it('2 believes two hops: a CDN in front of the reverse proxy', async () => {
    const { clientOf } = await appTrusting('2')
    expect(await clientOf('10.0.0.2', '6.6.6.6, 203.0.113.5, 192.0.2.10')).toBe('203.0.113.5')
  })

  it('a list of proxy addresses and networks believes exactly those hops', async () => {
    const { clientOf } = await appTrusting('10.0.0.0/8, 192.0.2.10')
    expect(await clientOf('10.0.0.2', '6.6.6.6, 203.0.113.5, 192.0.2.10, 10.9.9.9')).toBe('203.0.113.5')
    // A client that reaches the server directly is its own peer, whatever it writes.
    expect(await clientOf('198.51.100.7', '10.0.0.5')).toBe('198.51.100.7')
  })

  it('refuses anything else at start, naming the variable', () => {
    for (const bad of ['yes', 'true', '-1', '10.0.0.0/99', '1.2.3', '101']) {
      expect(() => readConfig({ TRUST_PROXY: bad })).toThrowError(/TRUST_PROXY=/)
    }
    expect(readConfig({ TRUST_PROXY: '1' }).trustProxy).toEqual({ hops: 1 })
    expect(readConfig({}).trustProxy).toBe(false)
    expect(readConfig({ TRUST_PROXY: '::1, fd00::/8' }).trustProxy).toEqual({
      addresses: ['::1', 'fd00::/8'],
    })
  })
})
