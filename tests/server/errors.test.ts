import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addStore, addUser, grant } from '../../server/db/accounts.ts'
import { bearer, capturedSms, createTestApp, sharedTestApp, signIn, type TestApp } from './test-app.ts'

const owner = '01012345678'
const sms = capturedSms()
const current = sharedTestApp({
  sms,
  setup: async (app: TestApp) => {
    await addUser(app.db, { phone: owner, name: '김사장' })
    await grant(app.db, owner, await addStore(app.db, { name: '역삼점' }), 'owner')
  },
})

/** Sends raw bytes to the listening app and reads until the server closes the connection. */
function rawRequest(port: number, text: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text))
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.on('error', reject)
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer in 5 s')))
  })
}

/** Status and JSON body of a raw HTTP/1.1 answer. */
function parseAnswer(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n')
  return {
    status: Number(head.match(/^HTTP\/1\.1 (\d{3})/)?.[1]),
    contentType: head.match(/^content-type: (.*)$/im)?.[1],
    body: JSON.parse(body) as unknown,
  }
}

describe('errors', () => {
  it('answers an unknown /api path with a JSON 404 and a Korean message', async () => {
    const response = await current.app.inject({ method: 'GET', url: '/api/v0/no-such-thing' })
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.json()).toEqual({ message: '요청한 주소를 찾을 수 없습니다.' })
  })

  it('answers a non-API path with a JSON 404 when no web app is built', async () => {
    const response = await current.app.inject({ method: 'GET', url: '/login' })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual({ message: '요청한 주소를 찾을 수 없습니다.' })
  })

  it('answers a body that is not JSON with a 400 and a Korean message, not a 500', async () => {
    const response = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      headers: { 'content-type': 'application/json' },
      payload: '{"phone":',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({ message: '요청 형식이 올바르지 않습니다.' })
  })

  it('answers a plain-text body with 400 and a body of an unknown type with 415', async () => {
    const text = await current.app.inject({
      method: 'POST',
      url: '/api/v0/user/sign',
      headers: { 'content-type': 'text/plain' },
      payload: 'phone=01012345678',
    })
    expect(text.statusCode).toBe(400)
    const response = await current.app.inject({
      method: 'POST',
      url: '/api/v0/user/sign',
      headers: { 'content-type': 'application/xml' },
      payload: '<phone>01012345678</phone>',
    })
    expect(response.statusCode).toBe(415)
    expect(response.json()).toEqual({ message: '지원하지 않는 요청 형식입니다. JSON으로 보내 주세요.' })
  })

  it('answers a body too large with 413', async () => {
    const response = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      payload: { phone: '0'.repeat(100_000) },
    })
    expect(response.statusCode).toBe(413)
    expect(response.json().message).toBe('요청이 너무 큽니다.')
  })

  it('answers a wrong method on a known path with a Korean 404, not a 500', async () => {
    const response = await current.app.inject({ method: 'PATCH', url: '/api/v0/user/phone' })
    expect(response.statusCode).toBe(404)
    expect(response.json().message).toMatch(/[가-힣]/)
  })

  it.each([
    ['a phone that is a number', { phone: 1012345678 }],
    ['a phone that is an object', { phone: { $ne: '' } }],
    ['a phone that is null', { phone: null }],
    ['a code that is an array', { phone: '01012345678', code: ['1', '2'] }],
  ])('refuses %s with a 400, never a 500', async (_, payload) => {
    const url = 'code' in payload ? '/api/v0/user/sign' : '/api/v0/user/phone'
    const response = await current.app.inject({ method: 'code' in payload ? 'POST' : 'PUT', url, payload })
    expect(response.statusCode).toBe(400)
    expect(response.json().message).toMatch(/[가-힣]/)
  })

  it.each([
    ['year=Infinity', '/api/v0/store/1/usage?year=Infinity', '조회할 연도가 올바르지 않습니다.'],
    ['year=-Infinity', '/api/v0/store/1/usage?year=-Infinity', '조회할 연도가 올바르지 않습니다.'],
    ['year=1e400', '/api/v0/store/1/usage?year=1e400', '조회할 연도가 올바르지 않습니다.'],
    ['year=-1e400', '/api/v0/store/1/usage?year=-1e400', '조회할 연도가 올바르지 않습니다.'],
    ['store Infinity', '/api/v0/store/Infinity/usage?year=2026', '매장 번호가 올바르지 않습니다.'],
    ['store 1e400', '/api/v0/store/1e400/usage?year=2026', '매장 번호가 올바르지 않습니다.'],
    ['year=0x7ea', '/api/v0/store/1/usage?year=0x7ea', '조회할 연도가 올바르지 않습니다.'],
    ['year=0b11111101010', '/api/v0/store/1/usage?year=0b11111101010', '조회할 연도가 올바르지 않습니다.'],
    ['year=%202026', '/api/v0/store/1/usage?year=%202026', '조회할 연도가 올바르지 않습니다.'],
    ['store 0x1', '/api/v0/store/0x1/usage?year=2026', '매장 번호가 올바르지 않습니다.'],
  ])(
    'refuses the number %s (non-finite, or not written in decimal) with a 400 naming the field',
    async (_, url, message) => {
      const { access } = await signIn(current.app, sms, owner)
      const response = await current.app.inject({ method: 'GET', url, headers: bearer(access) })
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual({ message })
    },
  )

  it('still reads a year written 2026.0 or 2.026e3 (decimal, whole)', async () => {
    const { access } = await signIn(current.app, sms, owner)
    for (const year of ['2026.0', '2.026e3', '2026']) {
      const url = `/api/v0/store/1/usage?year=${year}`
      expect(
        (await current.app.inject({ method: 'GET', url, headers: bearer(access) })).statusCode,
        year,
      ).toBe(200)
    }
  })

  it('refuses 1e400 in a JSON body with a 400 naming the field', async () => {
    const response = await current.app.inject({
      method: 'PUT',
      url: '/api/v0/user/phone',
      headers: { 'content-type': 'application/json' },
      payload: '{"phone":1e400}',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      message: '휴대폰 번호를 확인해 주세요. 숫자 10~11자리로 입력해 주세요.',
    })
  })

  it('answers a bad percent-encoding in the path with a Korean 400 that does not echo the address', async () => {
    const response = await current.app.inject({ method: 'GET', url: '/api/v0/user/%E0%A4%A' })
    expect(response.statusCode).toBe(400)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.json()).toEqual({ message: '요청 형식이 올바르지 않습니다.' })
  })

  it('answers a path parameter over the router limit with a Korean 414', async () => {
    const response = await current.app.inject({
      method: 'GET',
      url: `/api/v0/store/${'1'.repeat(101)}/usage`,
    })
    expect(response.statusCode).toBe(414)
    expect(response.json()).toEqual({ message: '요청 주소가 너무 깁니다.' })
  })

  it('answers /api itself with a JSON 404, like every path under it', async () => {
    for (const url of ['/api', '/api?x=1', '/api/', '/images', '/images/']) {
      const response = await current.app.inject({ method: 'GET', url })
      expect(response.statusCode, url).toBe(404)
      expect(response.json(), url).toEqual({ message: '요청한 주소를 찾을 수 없습니다.' })
    }
  })

  describe('errors the HTTP parser answers, on a real socket', () => {
    it('answers headers too large with a Korean 431 and a malformed request line with a Korean 400', async () => {
      const { app } = current
      await app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = app.server.address() as net.AddressInfo
      const huge = parseAnswer(
        await rawRequest(
          port,
          `GET /api/v0/user HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        ),
      )
      expect(huge).toEqual({
        status: 431,
        contentType: 'application/json; charset=utf-8',
        body: { message: '요청 헤더가 너무 큽니다.' },
      })
      for (const line of [
        'GARBAGE\r\n\r\n',
        'GET /api/v0/user HTTP/9.9\r\n\r\n',
        'GET /api/v0 user HTTP/1.1\r\n\r\n',
      ]) {
        expect(parseAnswer(await rawRequest(port, line)), line).toEqual({
          status: 400,
          contentType: 'application/json; charset=utf-8',
          body: { message: '요청 형식이 올바르지 않습니다.' },
        })
      }
      // A bad percent-encoding over a real socket too (Fastify answers it before any route).
      expect(
        parseAnswer(
          await rawRequest(port, 'GET /api/v0/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        ),
      ).toMatchObject({ status: 400, body: { message: '요청 형식이 올바르지 않습니다.' } })
    })
  })
})

describe('refusals below the routes, on a real socket', () => {
  let app: TestApp
  let port: number
  beforeAll(async () => {
    app = await createTestApp()
    await app.listen({ port: 0, host: '127.0.0.1' })
    port = (app.server.address() as net.AddressInfo).port
  })
  afterAll(() => app.close())

  it('answers an HTTP/1.1 request without a Host header (or an empty one) with a Korean 400', async () => {
    for (const headers of ['', 'Host: \r\n', 'Host:\r\n']) {
      const request = `GET /api/v0/user HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`
      expect(parseAnswer(await rawRequest(port, request)), request).toEqual({
        status: 400,
        contentType: 'application/json; charset=utf-8',
        body: { message: '요청 형식이 올바르지 않습니다.' },
      })
    }
    // HTTP/1.0 needs no Host: the request goes on to the route.
    expect(parseAnswer(await rawRequest(port, 'GET /api/v0/user HTTP/1.0\r\n\r\n'))).toMatchObject({
      status: 401,
      body: { message: '로그인이 필요합니다.' },
    })
  })

  it('closes a CONNECT connection after its 405, even when the client keeps its side open', async () => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    socket.setEncoding('latin1')
    let answer = ''
    const answered = new Promise<void>((resolve) =>
      socket.on('data', (chunk: string) => {
        answer += chunk
        resolve()
      }),
    )
    // The client never ends its side (allowHalfOpen): the server must let the connection go itself.
    socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
    await answered
    await new Promise((resolve) => setTimeout(resolve, 300))
    const open = await new Promise<number>((resolve, reject) =>
      app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    )
    socket.destroy()
    expect(answer).toMatch(/^HTTP\/1\.1 405 /)
    expect(open).toBe(0)
  })

  it('answers an Expect it cannot meet with a Korean 417, and CONNECT with a Korean 405', async () => {
    const expectation = 'GET /api/v0/user HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n'
    expect(parseAnswer(await rawRequest(port, expectation))).toEqual({
      status: 417,
      contentType: 'application/json; charset=utf-8',
      body: { message: '요청의 Expect 헤더를 처리할 수 없습니다.' },
    })
    expect(
      parseAnswer(
        await rawRequest(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      ),
    ).toEqual({
      status: 405,
      contentType: 'application/json; charset=utf-8',
      body: { message: '허용되지 않는 요청입니다.' },
    })
    // Expect: 100-continue is still met: the server asks for the body and answers the request.
    const continued = await rawRequest(
      port,
      'PUT /api/v0/user/phone HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    )
    expect(continued).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 400 /)
  })
})

describe('shutting down', () => {
  it('answers a request that arrives on a kept-alive connection while closing with a Korean 503', async () => {
    const app = await createTestApp()
    let socket: net.Socket | undefined
    let duringClose: string | undefined
    // preClose runs after the routes stop taking work and before the listening socket closes: the
    // moment a load balancer's kept-alive connection can still bring a request.
    app.addHook('preClose', async () => {
      duringClose = await new Promise<string>((resolve) => {
        const chunks: Buffer[] = []
        socket?.on('data', (chunk) => {
          chunks.push(chunk)
          const text = Buffer.concat(chunks).toString('utf8')
          const length = Number(text.match(/^content-length: (\d+)$/im)?.[1] ?? Number.NaN)
          const body = text.split('\r\n\r\n')[1]
          if (body !== undefined && Buffer.byteLength(body) === length) resolve(text)
        })
        socket?.write('GET /api/v0/user HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n')
      })
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    socket = net.connect(port, '127.0.0.1')
    await new Promise((resolve) => socket?.once('connect', resolve))
    await app.close()
    socket.destroy()
    const raw = duringClose ?? ''
    expect(parseAnswer(raw)).toEqual({
      status: 503,
      contentType: 'application/json; charset=utf-8',
      body: { message: '서버가 잠시 요청을 받을 수 없습니다. 잠시 후 다시 시도해 주세요.' },
    })
    expect(raw).toMatch(/^connection: close$/im)
  })

  it('answers a call that was in flight when closing began, and ends its kept-alive connection', async () => {
    const app = await createTestApp()
    let release = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    let arrived = () => {}
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve
    })
    // Stands for any slow call (a batch of sales on a busy database): it is running when close begins.
    app.get('/api/v0/test-slow', async () => {
      arrived()
      await released
      return { ok: true }
    })
    // It answers once closing has begun (the app's own preClose hook has run; this one comes after it).
    app.addHook('preClose', () => release())
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    // Read until the server closes the connection (5 s at most: the keep-alive timeout is 72 s).
    const answer = rawRequest(
      port,
      'GET /api/v0/test-slow HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n',
    )
    await inFlight
    const closed = app.close()
    const raw = await answer
    await closed
    expect(parseAnswer(raw)).toMatchObject({ status: 200, body: { ok: true } })
    expect(raw).toMatch(/^connection: close$/im)
  })
})
