// HTTPS with HTTP/2 (TLS_CERT_FILE, TLS_KEY_FILE; docs/product.md decision 100): the same server
// answers HTTP/2 and HTTP/1.1 over TLS (the web app, compressed, with its security headers; the usage
// answer; a held changes call woken by a sale), closes within 2 s with held HTTP/2 calls open, and
// refuses a half or unreadable TLS configuration before it starts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http2 from 'node:http2'
import https from 'node:https'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { selfSignedCertificate } from '../../scripts/self-signed.ts'
import { readConfig } from '../../server/config.ts'
import { pairedDevice, postSales, storeWithPeople } from './devices/helpers.ts'
import { createTestApp, resetDatabase, type TestApp, testClock, until } from './test-app.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
const dir = mkdtempSync(path.join(tmpdir(), 'laundry-tls-'))
let certFile = ''
let keyFile = ''
const webDir = path.join(dir, 'web')
let ca = ''

beforeAll(() => {
  ;({ certFile, keyFile } = selfSignedCertificate(dir))
  ca = readFileSync(certFile, 'utf8')
  mkdirSync(path.join(webDir, 'assets'), { recursive: true })
  writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>세탁</title>')
  writeFileSync(
    path.join(webDir, 'assets', 'app-abc123.js'),
    `console.log(${JSON.stringify('매출 '.repeat(2000))})`,
  )
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let opened: TestApp | null = null
afterEach(async () => {
  await opened?.close()
  opened = null
})

async function listening() {
  const app = await createTestApp({
    clock,
    env: { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, WEB_DIR: webDir },
  })
  opened = app
  await resetDatabase(app)
  const people = await storeWithPeople(app)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, people, address }
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** One request on an HTTP/2 session. */
function h2(session: http2.ClientHttp2Session, url: string, headers: Record<string, string> = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const stream = session.request({ ':path': url, ...headers })
    const chunks: Buffer[] = []
    let answer: Omit<Answer, 'body'> | undefined
    stream.on('response', (h) => {
      answer = { status: Number(h[':status']), headers: h }
    })
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () =>
      answer ? resolve({ ...answer, body: Buffer.concat(chunks) }) : reject(new Error('no answer')),
    )
    stream.on('error', reject)
  })
}

/** One request over HTTP/1.1 (TLS, ALPN offering only http/1.1). */
function h1(address: string, url: string, headers: Record<string, string> = {}) {
  return new Promise<Answer & { httpVersion: string }>((resolve, reject) => {
    const request = https.get(`${address}${url}`, { ca, headers, agent: false }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          httpVersion: response.httpVersion,
        }),
      )
    })
    request.on('error', reject)
  })
}

const changesUrl = (storeId: number, after: number, wait: number) =>
  `/api/v0/store/${storeId}/usage/changes?year=2026&after=${after}&wait=${wait}`

describe('HTTPS with HTTP/2', () => {
  it('answers over HTTP/2: the web app compressed and with its headers, the usage answer, a held changes call woken by a sale', async () => {
    const { app, people, address } = await listening()
    const session = http2.connect(address, { ca })
    try {
      const page = await h2(session, '/login')
      expect(page.status).toBe(200)
      expect(page.headers['content-security-policy']).toContain("default-src 'self'")
      expect(page.body.toString()).toContain('세탁')
      const script = await h2(session, '/assets/app-abc123.js', { 'accept-encoding': 'br' })
      expect(script.status).toBe(200)
      expect(script.headers['content-encoding']).toBe('br')

      const auth = { authorization: `Bearer ${people.owner}` }
      const usage = await h2(session, `/api/v0/store/${people.storeId}/usage?year=2026`, auth)
      expect(usage.status).toBe(200)
      expect(usage.headers['usage-revision']).toBe('0')
      expect(JSON.parse(usage.body.toString())).toEqual({ usages: [] })

      const held = h2(session, changesUrl(people.storeId, 0, 25), auth)
      await until(() => app.live.held === 1)
      const device = await pairedDevice(app, people.storeId, people.owner)
      const sale = { id: 'h2-1', createdAt: '2026-03-15T02:59:00.000Z', amount: 4500 }
      expect((await postSales(app, device.key, 'b1', [sale])).statusCode).toBe(200)
      const woken = await held
      expect(woken.status).toBe(200)
      expect(woken.headers['cache-control']).toBe('no-store')
      expect(JSON.parse(woken.body.toString())).toMatchObject({
        changes: [{ op: 'put', createdAt: sale.createdAt, amount: 4500 }],
        count: 1,
        sum: 4500,
      })
    } finally {
      session.close()
    }
  })

  it('answers over HTTP/1.1 on the same port: the usage answer and a held changes call woken by a sale', async () => {
    const { app, people, address } = await listening()
    const auth = { authorization: `Bearer ${people.owner}` }
    const usage = await h1(address, `/api/v0/store/${people.storeId}/usage?year=2026`, auth)
    expect(usage.httpVersion).toBe('1.1')
    expect(usage.status).toBe(200)
    expect(usage.headers['usage-revision']).toBe('0')

    const held = h1(address, changesUrl(people.storeId, 0, 25), auth)
    await until(() => app.live.held === 1)
    const device = await pairedDevice(app, people.storeId, people.owner)
    const sale = { id: 'h1-1', createdAt: '2026-03-15T02:58:00.000Z', amount: 3000 }
    expect((await postSales(app, device.key, 'b1', [sale])).statusCode).toBe(200)
    const woken = await held
    expect(woken.status).toBe(200)
    expect(JSON.parse(woken.body.toString())).toMatchObject({ count: 1, sum: 3000 })
  })

  it('closes within 2 s with held calls open over HTTP/2 and HTTP/1.1, answering them', async () => {
    const { app, people, address } = await listening()
    const auth = { authorization: `Bearer ${people.owner}` }
    const session = http2.connect(address, { ca })
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()))
    const calls = Array.from({ length: 3 }, () => h2(session, changesUrl(people.storeId, 0, 25), auth))
    const old = h1(address, changesUrl(people.storeId, 0, 25), auth)
    await until(() => app.live.held === 4)
    // Node drops a connection header on HTTP/2 with a warning: the server sends none there.
    const warnings: string[] = []
    const warned = (warning: Error) => warnings.push(warning.message)
    process.on('warning', warned)
    const started = Date.now()
    opened = null
    await app.close()
    expect(Date.now() - started).toBeLessThan(2_000)
    for (const answer of await Promise.all([...calls, old])) {
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.body.toString())).toEqual({ rev: 0, changes: [], count: 0, sum: 0 })
    }
    expect((await old).headers.connection).toBe('close')
    await new Promise((resolve) => setImmediate(resolve))
    process.off('warning', warned)
    expect(warnings).toEqual([])
    await goaway
    session.close()
  })
})

describe('streamed held calls over HTTPS (decision 133)', () => {
  /** A stream on an HTTP/2 session: its headers, and each event's data as it arrives. */
  function h2Stream(session: http2.ClientHttp2Session, url: string, headers: Record<string, string>) {
    const stream = session.request({ ':path': url, accept: 'text/event-stream', ...headers })
    const got = { headers: {} as http2.IncomingHttpHeaders, text: '', ended: false }
    stream.on('response', (h) => {
      got.headers = h
    })
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      got.text += chunk
    })
    stream.on('end', () => {
      got.ended = true
    })
    return got
  }
  const events = (text: string) =>
    text
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice(6)))

  it('streams each sale over HTTP/2 and HTTP/1.1, and the server still closes within 2 s, ending them', async () => {
    const { app, people, address } = await listening()
    const auth = { authorization: `Bearer ${people.owner}` }
    const session = http2.connect(address, { ca })
    const overH2 = h2Stream(session, changesUrl(people.storeId, 0, 25), auth)
    let overH1 = ''
    let h1Ended = false
    let h1Type = ''
    https.get(
      `${address}${changesUrl(people.storeId, 0, 25)}`,
      { ca, headers: { ...auth, accept: 'text/event-stream' }, agent: false },
      (response) => {
        h1Type = String(response.headers['content-type'])
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          overH1 += chunk
        })
        response.on('end', () => {
          h1Ended = true
        })
      },
    )
    await until(() => app.live.held === 2 && overH2.headers[':status'] !== undefined && h1Type !== '')
    expect(overH2.headers[':status']).toBe(200)
    expect(overH2.headers['content-type']).toBe('text/event-stream')
    expect(overH2.headers['content-encoding']).toBeUndefined()
    const device = await pairedDevice(app, people.storeId, people.owner)
    const sale = { id: 'stream-1', createdAt: '2026-03-15T02:59:00.000Z', amount: 4500 }
    expect((await postSales(app, device.key, 'b-stream', [sale])).statusCode).toBe(200)
    await until(() => events(overH2.text).length === 1 && events(overH1).length === 1)
    expect(h1Type).toBe('text/event-stream')
    for (const text of [overH2.text, overH1])
      expect(events(text)[0]).toMatchObject({ changes: [{ amount: 4500 }], count: 1, sum: 4500 })
    expect(overH2.ended || h1Ended).toBe(false)
    const started = Date.now()
    opened = null
    await app.close()
    expect(Date.now() - started).toBeLessThan(2_000)
    await until(() => overH2.ended && h1Ended)
    session.close()
  })
})

describe('TLS configuration', () => {
  it('needs both files, readable, PEM: a clear error otherwise', () => {
    expect(() => readConfig({ TLS_CERT_FILE: certFile })).toThrowError(
      /TLS_CERT_FILE만 있고 TLS_KEY_FILE가 없습니다.*TLS_CERT_FILE is set but TLS_KEY_FILE is not/,
    )
    expect(() => readConfig({ TLS_KEY_FILE: keyFile })).toThrowError(
      /TLS_KEY_FILE is set but TLS_CERT_FILE is not/,
    )
    expect(() =>
      readConfig({ TLS_CERT_FILE: path.join(dir, 'none.pem'), TLS_KEY_FILE: keyFile }),
    ).toThrowError(/TLS_CERT_FILE=".*none\.pem": 파일을 읽을 수 없습니다 \(ENOENT\).*cannot be read/)
    expect(() => readConfig({ TLS_CERT_FILE: keyFile, TLS_KEY_FILE: keyFile })).toThrowError(
      /TLS_CERT_FILE=.*not a PEM certificate/,
    )
    expect(() => readConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: certFile })).toThrowError(
      /TLS_KEY_FILE=.*not a PEM private key/,
    )
    expect(readConfig({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile }).tls).toEqual({
      cert: ca,
      key: readFileSync(keyFile, 'utf8'),
    })
    expect(readConfig({}).tls).toBeUndefined()
  })
})
