import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './test-app.ts'

describe('serving the web app, pictures and the API description', () => {
  let app: TestApp
  const script = `console.log(${JSON.stringify('빨래방 '.repeat(500))})`
  /** The first painter, which the build writes into index.html (build/index-html.ts). */
  const painter = '(()=>{document.title="app"})();'
  /** The app's stylesheet, which the build writes into index.html too. */
  const style = ':root{--brand:#4db8ff}body{margin:0}'
  const dir = mkdtempSync(path.join(tmpdir(), 'laundry-web-'))
  beforeAll(async () => {
    mkdirSync(path.join(dir, 'web', 'assets'), { recursive: true })
    mkdirSync(path.join(dir, 'images', 'stores'), { recursive: true })
    mkdirSync(path.join(dir, 'images', 'demo'), { recursive: true })
    writeFileSync(path.join(dir, 'images', 'demo', 'owner.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    writeFileSync(
      path.join(dir, 'web', 'index.html'),
      `<!doctype html><title>app</title><script data-app="/assets/index-abc123.js">${painter}</script><style>${style}</style><script type="module" src="/assets/index-abc123.js"></script>`,
    )
    writeFileSync(path.join(dir, 'web', 'assets', 'index-abc123.js'), 'console.log(1)')
    // What the build writes beside each file: the same bytes compressed once, as hard as they go.
    writeFileSync(path.join(dir, 'web', 'assets', 'app-def456.js'), script)
    writeFileSync(path.join(dir, 'web', 'assets', 'app-def456.js.br'), brotliCompressSync(script))
    writeFileSync(path.join(dir, 'web', 'assets', 'app-def456.js.gz'), gzipSync(script, { level: 9 }))
    writeFileSync(path.join(dir, 'images', 'stores', '1-1.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    app = await createTestApp({
      env: { WEB_DIR: path.join(dir, 'web'), IMAGE_DIR: path.join(dir, 'images') },
    })
  })
  afterAll(async () => {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it.each(['/', '/login', '/some/unknown/page'])('answers %s with index.html, never cached', async (url) => {
    const response = await app.inject({ method: 'GET', url })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/html/)
    expect(response.body).toContain('<title>app</title>')
    expect(response.headers['cache-control']).toBe('no-cache')
  })

  it('serves hashed assets as immutable, and a missing one as a 404 rather than the page', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' })
    expect(asset.statusCode).toBe(200)
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    const missing = await app.inject({ method: 'GET', url: '/assets/index-gone.js' })
    expect(missing.statusCode).toBe(404)
  })

  it.each([
    ['br', brotliCompressSync],
    ['gzip', (bytes: string) => gzipSync(bytes, { level: 9 })],
  ] as const)('sends the %s file the build compressed, as it is', async (encoding, compress) => {
    const response = await app.inject({
      method: 'GET',
      url: '/assets/app-def456.js',
      headers: { 'accept-encoding': encoding },
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-encoding']).toBe(encoding)
    expect(response.headers.vary).toMatch(/accept-encoding/i)
    expect(response.headers['content-type']).toMatch(/^application\/javascript/)
    expect(response.rawPayload.equals(compress(script))).toBe(true)
  })

  it('sends the plain file to a client that takes no compression', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/assets/app-def456.js',
      headers: { 'accept-encoding': 'identity' },
    })
    expect(response.headers['content-encoding']).toBeUndefined()
    expect(response.body).toBe(script)
  })

  it('serves pictures from IMAGE_DIR under /images/', async () => {
    const image = await app.inject({ method: 'GET', url: '/images/stores/1-1.svg' })
    expect(image.statusCode).toBe(200)
    expect(image.headers['content-type']).toMatch(/^image\/svg\+xml/)
    // Uploaded pictures are a user's or a store's: kept by the browser only, never by a shared cache.
    expect(image.headers['cache-control']).toBe('private, max-age=86400')
    // The demo's pictures are the same for everyone.
    const demo = await app.inject({ method: 'GET', url: '/images/demo/owner.svg' })
    expect(demo.statusCode).toBe(200)
    expect(demo.headers['cache-control']).toBe('public, max-age=86400')
    expect((await app.inject({ method: 'GET', url: '/images/../web/index.html' })).statusCode).toBe(404)
  })

  it('sends security headers with a Content-Security-Policy the app works under', async () => {
    const response = await app.inject({ method: 'GET', url: '/login' })
    const csp = response.headers['content-security-policy']
    expect(csp).toContain("default-src 'self'")
    // Scripts of our own only: files, and index.html's inline painter by its hash (no other inline script).
    const painterHash = createHash('sha256').update(painter).digest('base64')
    expect(csp).toContain(`script-src 'self' 'sha256-${painterHash}';`)
    // Styles likewise: files, and index.html's own stylesheet by its hash.
    const styleHash = createHash('sha256').update(style).digest('base64')
    expect(csp).toContain(`style-src 'self' 'sha256-${styleHash}';`)
    expect(csp).not.toContain('unsafe-inline')
    // A new build deployed in place: its painter's hash, without a restart.
    const index = path.join(dir, 'web', 'index.html')
    const newPainter = '(()=>{document.title="new"})();'
    writeFileSync(index, `<!doctype html><title>app</title><script data-app="/a.js">${newPainter}</script>`)
    utimesSync(index, new Date(), new Date(Date.now() + 60_000))
    const after = (await app.inject({ method: 'GET', url: '/login' })).headers['content-security-policy']
    const newHash = createHash('sha256').update(newPainter).digest('base64')
    expect(after).toContain(`script-src 'self' 'sha256-${newHash}';`)
    // The API's answers are no page: no file is looked at for them, and no inline script is allowed.
    const api = (await app.inject({ method: 'GET', url: '/api/v0/stores' })).headers[
      'content-security-policy'
    ]
    expect(api).toContain("script-src 'self';")
    expect(api).toContain("style-src 'self';")
    expect(csp).toContain("object-src 'none'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('upgrade-insecure-requests')
    expect(response.headers['referrer-policy']).toBe('no-referrer')
    expect(response.headers['x-content-type-options']).toBe('nosniff')
  })

  it('describes the API at /api/openapi.json, generated from the schemas', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/openapi.json' })
    expect(response.statusCode).toBe(200)
    const document = response.json()
    expect(document.openapi).toMatch(/^3\./)
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/v0/alerts',
      '/api/v0/alerts/settings',
      '/api/v0/device/heartbeat',
      '/api/v0/device/pair',
      '/api/v0/device/sales',
      '/api/v0/push/key',
      '/api/v0/push/subscription',
      '/api/v0/push/test',
      '/api/v0/store/{id}/devices',
      '/api/v0/store/{id}/devices/{deviceId}',
      '/api/v0/store/{id}/export/tax.csv',
      '/api/v0/store/{id}/invites',
      '/api/v0/store/{id}/invites/{inviteId}',
      '/api/v0/store/{id}/machines',
      '/api/v0/store/{id}/machines/{machine}',
      '/api/v0/store/{id}/members',
      '/api/v0/store/{id}/members/log',
      '/api/v0/store/{id}/members/{userId}',
      '/api/v0/store/{id}/usage',
      '/api/v0/store/{id}/usage/changes',
      '/api/v0/stores/overview',
      '/api/v0/user',
      '/api/v0/user/phone',
      '/api/v0/user/sign',
    ])
    expect(Object.keys(document.paths['/api/v0/user/sign']).sort()).toEqual(['delete', 'get', 'post'])
    // The usage answer declares its revision, the changes call's `after`.
    expect(
      document.paths['/api/v0/store/{id}/usage'].get.responses['200'].headers['usage-revision'].schema.type,
    ).toBe('integer')
    expect(
      document.paths['/api/v0/user/phone'].put.requestBody.content['application/json'].schema.required,
    ).toEqual(['phone'])
  })
})

describe('answers outside the API routes, on a real socket (paths sent exactly as written)', () => {
  let app: TestApp
  let port: number
  const dir = mkdtempSync(path.join(tmpdir(), 'laundry-web-'))
  beforeAll(async () => {
    mkdirSync(path.join(dir, 'web'))
    mkdirSync(path.join(dir, 'images', 'stores'), { recursive: true })
    writeFileSync(path.join(dir, 'web', 'index.html'), '<!doctype html><title>app page</title>')
    writeFileSync(path.join(dir, 'secret.txt'), 'outside the image folder')
    writeFileSync(path.join(dir, 'images', 'stores', '1.png'), 'not really a png')
    app = await createTestApp({
      env: { WEB_DIR: path.join(dir, 'web'), IMAGE_DIR: path.join(dir, 'images') },
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    port = (app.server.address() as net.AddressInfo).port
  })
  afterAll(async () => {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  })

  function rawGet(target: string, headers = '') {
    return new Promise<{ status: number; contentType?: string; body: string }>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`),
      )
      const chunks: Buffer[] = []
      socket.on('data', (chunk) => chunks.push(chunk))
      socket.on('error', reject)
      socket.on('close', () => {
        const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n')
        resolve({
          status: Number(head.match(/^HTTP\/1\.1 (\d{3})/)?.[1]),
          contentType: head.match(/^content-type: (.*)$/im)?.[1],
          body,
        })
      })
    })
  }

  it('answers /api and /images themselves with a JSON 404, never the page', async () => {
    expect((await rawGet('/login')).body).toContain('app page')
    for (const target of ['/api', '/api?x=1', '/api#x', '/images', '/images?x=1']) {
      const answer = await rawGet(target)
      expect(answer.status, target).toBe(404)
      expect(JSON.parse(answer.body), target).toEqual({ message: '요청한 주소를 찾을 수 없습니다.' })
    }
  })

  it('refuses paths out of the image folder with a neutral Korean 403, not the store text', async () => {
    expect((await rawGet('/images/stores/1.png')).body).toBe('not really a png')
    for (const target of ['/images/../secret.txt', '/images/%2e%2e/secret.txt', '/images/a%00b']) {
      const answer = await rawGet(target)
      expect(answer.status, target).toBe(403)
      expect(answer.contentType, target).toMatch(/^application\/json/)
      expect(JSON.parse(answer.body), target).toEqual({ message: '접근할 수 없는 주소입니다.' })
    }
  })

  it('answers a range it cannot send and a failed precondition in Korean JSON', async () => {
    const range = await rawGet('/images/stores/1.png', 'Range: bytes=9999-\r\n')
    expect(range.status).toBe(416)
    expect(JSON.parse(range.body)).toEqual({ message: '요청한 범위를 보낼 수 없습니다.' })
    const precondition = await rawGet('/images/stores/1.png', 'If-Match: "nope"\r\n')
    expect(precondition.status).toBe(412)
    expect(JSON.parse(precondition.body)).toEqual({
      message: '요청의 조건이 맞지 않습니다. 새로 고친 뒤 다시 시도해 주세요.',
    })
  })
})
