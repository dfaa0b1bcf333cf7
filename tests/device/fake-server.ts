// A small stand-in for the server's device calls (docs/operations.md, "Devices"), over real HTTP, that
// can misbehave: refuse connections for a while, never answer (before or after storing a batch), cut
// the connection after storing, and answer 503, 429 (with Retry-After) and 409. Unlike the real server
// it does NOT drop a sale whose id it already has: it stores every sale of every new batch, so a
// device that sent a delivered sale again under another key shows up as a duplicate here.
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface StoredSale {
  id: string
  createdAt: string
  amount: number
  key: string
}

type Misbehaviour = 'none' | '503' | '429' | '409' | 'hang' | 'store-then-hang' | 'store-then-cut'

export interface FakeServerOptions {
  /** The share of sales calls that misbehave (0 to 1), each way alike. */
  chaos?: number
  /** Refuse connections for `downMs` every `everyMs`. */
  outages?: { everyMs: number; downMs: number }
}

export async function startFakeServer(options: FakeServerOptions = {}) {
  const pairingCodes = new Map<string, { storeId: number }>()
  const keys = new Map<string, { deviceId: number; storeId: number; revoked: boolean }>()
  const batches = new Map<string, { body: string; answer: string }>()
  const stored: StoredSale[] = []
  const heartbeats: number[] = []
  const statuses: Record<string, number> = {}
  let nextDeviceId = 1
  const hanging = new Set<ServerResponse>()
  let turn = 0

  const misbehaviour = (): Misbehaviour => {
    const chaos = options.chaos ?? 0
    if (Math.random() >= chaos) return 'none'
    // Each way in turn, so that a short run meets them all.
    const kinds: Misbehaviour[] = ['store-then-hang', '503', 'store-then-cut', '429', 'hang', '409']
    return kinds[turn++ % kinds.length] ?? 'none'
  }

  const send = (
    response: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    statuses[status] = (statuses[status] ?? 0) + 1
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(body === undefined ? undefined : JSON.stringify(body))
  }

  const readBody = (request: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      request.on('error', reject)
    })

  const device = (request: IncomingMessage) => {
    const key = request.headers.authorization?.replace(/^Bearer /, '') ?? ''
    const found = keys.get(key)
    return found && !found.revoked ? found : undefined
  }

  const server = createServer(async (request, response) => {
    const body = await readBody(request)
    const url = request.url ?? ''
    if (request.method !== 'POST') return send(response, 404, { message: '없는 주소입니다.' })
    if (url === '/api/v0/device/pair') {
      const { code } = JSON.parse(body) as { code: string }
      const pairing = pairingCodes.get(code)
      if (!pairing) return send(response, 400, { message: '연결 코드가 맞지 않습니다.' })
      pairingCodes.delete(code)
      const key = randomBytes(24).toString('base64url')
      const deviceId = nextDeviceId++
      keys.set(key, { deviceId, storeId: pairing.storeId, revoked: false })
      return send(response, 200, { deviceId, storeId: pairing.storeId, key })
    }
    if (url === '/api/v0/device/heartbeat') {
      if (!device(request)) return send(response, 401, { message: '단말기 키가 맞지 않습니다.' })
      heartbeats.push((JSON.parse(body) as { pending: number }).pending)
      statuses[204] = (statuses[204] ?? 0) + 1
      response.writeHead(204).end()
      return
    }
    if (url !== '/api/v0/device/sales') return send(response, 404, { message: '없는 주소입니다.' })
    if (!device(request)) return send(response, 401, { message: '단말기 키가 맞지 않습니다.' })
    const idempotencyKey = request.headers['idempotency-key']
    if (typeof idempotencyKey !== 'string')
      return send(response, 400, { message: 'Idempotency-Key가 없습니다.' })
    const how = misbehaviour()
    if (how === '503')
      return send(response, 503, { message: '잠시 후 다시 시도해 주세요.' }, { 'retry-after': '0' })
    if (how === '429')
      return send(response, 429, { message: '요청이 너무 많습니다.' }, { 'retry-after': '1' })
    if (how === '409') return send(response, 409, { message: '같은 요청을 처리하고 있습니다.' })
    if (how === 'hang') {
      hanging.add(response)
      return
    }
    // The batch's identity is its sales; `sentAt` (each attempt's clock) is not part of it.
    const { sales } = JSON.parse(body) as { sales: Omit<StoredSale, 'key'>[] }
    const identity = JSON.stringify(sales)
    const known = batches.get(idempotencyKey)
    let answer: string
    if (known) {
      if (known.body !== identity) return send(response, 422, { message: '같은 키에 다른 내용입니다.' })
      answer = known.answer
    } else {
      for (const sale of sales) stored.push({ ...sale, key: idempotencyKey })
      answer = JSON.stringify({
        accepted: sales.length,
        duplicates: 0,
        rejected: [],
        serverTime: new Date().toISOString(),
      })
      batches.set(idempotencyKey, { body: identity, answer })
    }
    if (how === 'store-then-hang') {
      hanging.add(response)
      return
    }
    if (how === 'store-then-cut') {
      response.socket?.destroy()
      return
    }
    statuses[200] = (statuses[200] ?? 0) + 1
    response.writeHead(200, { 'content-type': 'application/json' }).end(answer)
  })

  const listen = (port: number) =>
    new Promise<number>((resolve) =>
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    )
  const port = await listen(0)
  let outageTimer: ReturnType<typeof setInterval> | undefined
  let refusals = 0
  let closed = false
  const startOutages = ({ everyMs, downMs }: { everyMs: number; downMs: number }) => {
    outageTimer = setInterval(() => {
      refusals++
      server.close()
      server.closeAllConnections()
      setTimeout(() => {
        if (!closed) void listen(port)
      }, downMs)
    }, everyMs)
  }
  if (options.outages) startOutages(options.outages)

  return {
    url: `http://127.0.0.1:${port}`,
    stored,
    heartbeats,
    statuses,
    refusals: () => refusals,
    /** A pairing code for a store, as the owner's screen would show it. */
    addPairingCode(storeId = 1) {
      const code = randomBytes(6).toString('hex').toUpperCase()
      pairingCodes.set(code, { storeId })
      return code
    },
    revokeAll() {
      for (const entry of keys.values()) entry.revoked = true
    },
    /** Starts misbehaving from now on. */
    misbehave(more: FakeServerOptions) {
      if (more.chaos !== undefined) options.chaos = more.chaos
      if (more.outages && !outageTimer) startOutages(more.outages)
    },
    calm() {
      options.chaos = 0
      if (outageTimer) clearInterval(outageTimer)
      outageTimer = undefined
    },
    async close() {
      closed = true
      if (outageTimer) clearInterval(outageTimer)
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type FakeServer = Awaited<ReturnType<typeof startFakeServer>>
