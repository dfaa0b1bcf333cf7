// Clients that do not read (docs/product.md decisions 157–159), over real sockets on either database:
// a stream stops queueing and ends once its client is too far behind; an answer whose output does not
// move for the stall time loses its connection, while a slow reader that keeps reading does not; the
// year as puts (`after=0`) counts against the sign-in's bound while it is unread; and a stream ended by
// its token's expiry counts until its connection is gone.
//
// The server listens on a Unix socket: its kernel buffer (about 200 kB) fills with a test year of
// 10,000 records (about 660 kB as puts), so what the server queues itself shows after the first event.
// Over loopback TCP the kernel takes several MB first, a year of records too slow to build in a test.
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { messages } from '../../../server/errors.ts'
import { heldPerSignIn } from '../../../server/live/live.ts'
import { streamQueueBytes } from '../../../server/live/stream.ts'
import { bearer, createTestApp, resetDatabase, type TestApp, testClock, until } from '../test-app.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
const heartbeatMs = 300
const yearRecords = 10_000
let opened: { app: TestApp; dir: string; requests: http.ClientRequest[] } | null = null
afterEach(async () => {
  for (const request of opened?.requests ?? []) request.destroy()
  await opened?.app.close()
  if (opened) rmSync(opened.dir, { recursive: true, force: true })
  opened = null
  clock.set()
})

async function listening({
  sendStallMs,
  streamHeartbeatMs = heartbeatMs,
  env,
}: {
  sendStallMs?: number
  streamHeartbeatMs?: number
  env?: Record<string, string>
} = {}) {
  const app = await createTestApp({ clock, streamHeartbeatMs, livePollMs: 60_000, sendStallMs, env })
  const dir = mkdtempSync(path.join(tmpdir(), 'laundry-slow-'))
  const requests: http.ClientRequest[] = []
  opened = { app, dir, requests }
  await resetDatabase(app)
  const ownerId = await addUser(app.db, { phone: '01012345678', name: '김사장' })
  const storeId = await addStore(app.db, { name: '역삼점' })
  await grant(app.db, '01012345678', storeId, 'owner')
  const owner = await app.tokens.start(ownerId)
  // One statement: each record still goes through the usages triggers (revision, log).
  await app.db.execute(
    sql`insert into usages (store_id, created_at, amount)
        select ${storeId}, timestamptz '2026-01-01T00:00:00Z' + g * interval '5 minutes', 1000 + g % 7
        from generate_series(1, ${yearRecords}) as g`,
  )
  const sockets: net.Socket[] = []
  app.server.on('connection', (socket: net.Socket) => sockets.push(socket))
  const socketPath = path.join(dir, 'server.sock')
  await app.listen({ path: socketPath })
  /** Asks over a connection of its own; the answer's body is not read unless `read` is called. */
  const ask = async (url: string, headers: Record<string, string>) => {
    const request = http.get({ socketPath, path: url, agent: false, headers })
    requests.push(request)
    request.on('error', () => {})
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve))
    response.pause()
    const closed = new Promise<void>((resolve) => request.socket?.once('close', () => resolve()))
    const read = async () => {
      let body = ''
      response.setEncoding('utf8')
      for await (const chunk of response) body += chunk
      return body
    }
    return { request, response, closed, read }
  }
  const changesUrl = (query: string) => `/api/v0/store/${storeId}/usage/changes?year=2026&${query}`
  const sale = (createdAt: string, amount: number) =>
    app.db.execute(
      sql`insert into usages (store_id, created_at, amount) values (${storeId}, ${createdAt}::timestamptz, ${amount})`,
    )
  /** The bytes the server's side of the connections holds unsent (each connection's own queue). */
  const queued = () => sockets.reduce((total, socket) => total + socket.writableLength, 0)
  return { app, owner, ask, changesUrl, sale, queued, sockets }
}

const streaming = { accept: 'text/event-stream' }

describe('a client that does not read', () => {
  it('has a stream that stops queueing past the bound and ends (the app asks again after its rev)', async () => {
    const { app, owner, ask, changesUrl, sale, queued } = await listening()
    await ask(changesUrl('after=0&wait=25'), { ...bearer(owner.access), ...streaming })
    await until(() => app.live.held === 1)
    // The year as puts is the first event: past what the kernel takes, the rest waits on the server.
    await until(() => queued() > 0)
    const first = queued()
    for (let i = 0; i < 10; i++) await sale(`2026-03-02T09:${String(i).padStart(2, '0')}:00.000Z`, 1000 + i)
    // Without a bound each sale adds an event to the queue, for as long as the client keeps the socket.
    await until(() => app.live.held === 0, 5_000)
    expect(queued()).toBeGreaterThan(streamQueueBytes)
    // Nothing more after the first event but the end of the chunked answer (5 bytes).
    expect(queued()).toBeLessThanOrEqual(first + 5)
  }, 60_000)

  it('loses its connection once its output has not moved for the stall time; a slow reader keeps it', async () => {
    const { owner, ask, changesUrl, sockets } = await listening({ sendStallMs: 1_000 })
    const unread = await ask(changesUrl('after=0'), bearer(owner.access))
    expect(unread.response.statusCode).toBe(200)
    const started = Date.now()
    // The server's side of the connection: its client, paused, would see the end only once it read.
    await until(() => sockets[0]?.destroyed === true, 5_000)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    // A reader that takes a little every 50 ms gets the whole answer, however long that takes.
    const slow = await ask(changesUrl('after=0'), bearer(owner.access))
    let body = ''
    slow.response.setEncoding('utf8')
    slow.response.on('data', (chunk: string) => {
      body += chunk
      slow.response.pause()
      setTimeout(() => slow.response.resume(), 50)
    })
    slow.response.resume()
    await new Promise<void>((resolve, reject) => {
      slow.response.once('end', resolve)
      slow.response.once('close', () => (slow.response.complete ? resolve() : reject(new Error('cut short'))))
    })
    expect(JSON.parse(body)).toMatchObject({ count: yearRecords })
  }, 60_000)

  it('holds one of its sign-in’s answers with each unread after=0 answer: beyond the bound, 429 in Korean', async () => {
    const { owner, ask, changesUrl, queued } = await listening()
    const unread = []
    for (let i = 0; i < heldPerSignIn; i++) {
      const answer = await ask(changesUrl('after=0'), bearer(owner.access))
      expect(answer.response.statusCode).toBe(200)
      unread.push(answer)
    }
    await until(() => queued() > 0)
    const refused = await ask(changesUrl('after=0'), bearer(owner.access))
    expect(refused.response.statusCode).toBe(429)
    expect(refused.response.headers['retry-after']).toBe('5')
    expect(JSON.parse(await refused.read())).toEqual({ message: messages.tooManyHeld })
    // A held call is refused too while the year's answers stay unread.
    const held = await ask(changesUrl('after=1&wait=25'), bearer(owner.access))
    expect(held.response.statusCode).toBe(429)
    // Read, one of them frees its place.
    expect(JSON.parse(await (unread[0] as (typeof unread)[number]).read())).toMatchObject({
      count: yearRecords,
    })
    const again = async () => (await ask(changesUrl('after=0'), bearer(owner.access))).response.statusCode
    await until(async () => (await again()) === 200)
  }, 60_000)

  it('counts a stream ended by its token’s expiry until its connection is gone', async () => {
    // Tokens of 10 s, and no heartbeat meanwhile: each stream ends at its token's end, its year unsent.
    const { app, owner, ask, changesUrl, queued } = await listening({
      streamHeartbeatMs: 60_000,
      env: { ACCESS_TOKEN_SECONDS: '10' },
    })
    const streams = []
    for (let i = 0; i < heldPerSignIn; i++)
      streams.push(await ask(changesUrl('after=0&wait=25'), { ...bearer(owner.access), ...streaming }))
    await until(() => app.live.held === heldPerSignIn)
    await until(() => queued() > 0)
    await until(() => app.live.held === 0, 20_000)
    // The same sign-in, with a fresh access token.
    const { access } = await app.tokens.rotate(owner.refresh)
    const refused = await ask(changesUrl('after=1&wait=25'), { ...bearer(access), ...streaming })
    expect(refused.response.statusCode).toBe(429)
    expect(JSON.parse(await refused.read())).toEqual({ message: messages.tooManyHeld })
    // Their clients gone, their places are free.
    for (const stream of streams) stream.request.destroy()
    await Promise.all(streams.map((stream) => stream.closed))
    const again = async () =>
      (await ask(changesUrl('after=1&wait=25'), { ...bearer(access), ...streaming })).response.statusCode
    await until(async () => (await again()) === 200)
  }, 60_000)
})
