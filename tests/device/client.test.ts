import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { Sale } from '../../device/batch.ts'
import { Device, PairingError, pair } from '../../device/client.ts'
import { backoffMs, type Fetch, retryAfterMs } from '../../device/http.ts'
import { readIdentity, writeIdentity } from '../../device/identity.ts'
import { startFakeServer } from './fake-server.ts'

const dirs: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'device-client-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const sale = (n: number): Sale => ({ id: `s${n}`, createdAt: '2026-11-25T09:00:00.000Z', amount: 4000 })
const fast = { retry: { baseMs: 5, maxMs: 20 }, heartbeatMs: 60_000 }

/** A paired device whose network is `fetch`: every call it makes is recorded. */
function deviceWith(answers: (call: { url: string; init: RequestInit }) => Response | Promise<Response>) {
  const dir = freshDir()
  writeIdentity(dir, { server: 'http://device.test', deviceId: 7, storeId: 2, key: 'k3y', pairedAt: 'then' })
  const calls: { url: string; init: RequestInit }[] = []
  const fetch: Fetch = async (url, init) => {
    calls.push({ url, init })
    return answers({ url, init })
  }
  return { device: new Device(dir, { ...fast, fetch }), calls, dir }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
const ok = (n: number) =>
  json(200, { accepted: n, duplicates: 0, rejected: [], serverTime: new Date().toISOString() })
async function until(condition: () => boolean, ms = 5_000) {
  for (const deadline = Date.now() + ms; !condition(); ) {
    if (Date.now() > deadline) throw new Error('not in time')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
const salesCalls = (calls: { url: string; init: RequestInit }[]) =>
  calls.filter((call) => call.url.endsWith('/device/sales'))

describe('the device', () => {
  test.each([
    ['a network error', () => Promise.reject(new TypeError('fetch failed'))],
    ['503', () => json(503, { message: '잠시 후' })],
    ['409', () => json(409, { message: '처리 중' })],
    ['429', () => json(429, { message: '너무 많음' }, { 'retry-after': '0' })],
    ['500', () => json(500, { message: '오류' })],
  ])(
    'after %s it tries the same batch again, with the same key and body, and keeps it until a 2xx',
    async (_, fail) => {
      let failures = 2
      const { device, calls } = deviceWith(({ url }) => {
        if (url.endsWith('/heartbeat')) return new Response(null, { status: 204 })
        return failures-- > 0 ? fail() : ok(2)
      })
      device.take([sale(1), sale(2)])
      const running = device.start()
      await device.idle()
      device.stop()
      expect(await running).toEqual({})
      const sent = salesCalls(calls)
      expect(sent).toHaveLength(3)
      const keys = sent.map((call) => (call.init.headers as Record<string, string>)['idempotency-key'])
      expect(new Set(keys).size).toBe(1)
      const bodies = sent.map(
        (call) => JSON.parse(String(call.init.body)) as { sales: Sale[]; sentAt: string },
      )
      expect(new Set(bodies.map((body) => JSON.stringify(body.sales))).size).toBe(1)
      // Each attempt says the device's clock as it sends (not part of the batch's identity).
      for (const body of bodies) expect(Date.parse(body.sentAt)).toBeGreaterThan(Date.now() - 60_000)
      expect(sent.map((call) => (call.init.headers as Record<string, string>).authorization)).toContain(
        'Bearer k3y',
      )
      expect(device.queue.length).toBe(0)
      device.close()
    },
  )

  test.each([
    [401, '단말기 키가 맞지 않습니다.'],
    [422, '같은 키에 다른 내용입니다.'],
    [400, '요청이 올바르지 않습니다.'],
  ])('a %i stops it, reported, with the sales still queued', async (status, message) => {
    const { device, calls } = deviceWith(({ url }) =>
      url.endsWith('/heartbeat') ? new Response(null, { status: 204 }) : json(status, { message }),
    )
    device.take([sale(1)])
    const stopped = await device.start()
    expect(stopped).toEqual({ refused: { status, message, call: 'sales' } })
    expect(salesCalls(calls)).toHaveLength(1)
    expect(device.queue.length).toBe(1)
    device.close()
  })

  test("a new generation in a heartbeat sends the acknowledged sales again; an older call's answer is not heeded", async () => {
    let generation = 'g1'
    let heartbeats = 0
    let lateAnswer: (() => void) | undefined
    const { device, calls } = deviceWith(({ url, init }) => {
      if (url.endsWith('/heartbeat')) {
        heartbeats++
        const answer = new Response(null, { status: 204, headers: { 'database-generation': generation } })
        // The third heartbeat's answer comes late, telling the generation of when it was sent.
        if (heartbeats === 3) return new Promise<Response>((resolve) => (lateAnswer = () => resolve(answer)))
        return answer
      }
      const sales = (JSON.parse(String(init.body)) as { sales: Sale[] }).sales
      return json(200, { accepted: sales.length, duplicates: 0, rejected: [], serverTime: '', generation })
    })
    const beat = () => (device as unknown as { beat(): Promise<void> }).beat()
    device.take([sale(1), sale(2)])
    const running = device.start()
    await device.idle()
    expect(device.queue.kept.map((s) => s.id)).toEqual(['s1', 's2'])
    expect(device.queue.generation).toBe('g1')
    await beat()
    const late = beat()
    generation = 'g2'
    await beat()
    // The new generation: both sent again, in a batch of their own.
    await until(() => salesCalls(calls).length === 2)
    await device.idle()
    const resent = JSON.parse(String(salesCalls(calls)[1]?.init.body)) as { sales: Sale[] }
    expect(resent.sales.map((s) => s.id)).toEqual(['s1', 's2'])
    // The late answer says g1, but its call was made before the move to g2: nothing happens.
    lateAnswer?.()
    await late
    expect(device.queue.generation).toBe('g2')
    expect(device.queue.length).toBe(0)
    device.stop()
    await running
    expect(salesCalls(calls)).toHaveLength(2)
    device.close()
  })

  test('an answer telling the generation the server has left since is no acknowledgement: the batch goes again under its key', async () => {
    let generation = 'g1'
    let held: (() => void) | undefined
    let sales = 0
    const { device, calls } = deviceWith(({ url, init }) => {
      if (url.endsWith('/heartbeat'))
        return new Response(null, { status: 204, headers: { 'database-generation': generation } })
      const sent = (JSON.parse(String(init.body)) as { sales: Sale[] }).sales
      const answer = json(200, {
        accepted: sent.length,
        duplicates: 0,
        rejected: [],
        serverTime: '',
        generation,
      })
      // The first batch is answered late, by the generation it was stored in (then lost by a restore).
      if (++sales === 1) return new Promise<Response>((resolve) => (held = () => resolve(answer)))
      return answer
    })
    const beat = () => (device as unknown as { beat(): Promise<void> }).beat()
    await beat()
    device.take([sale(1)])
    const running = device.start()
    await until(() => held !== undefined)
    generation = 'g2'
    await beat()
    held?.()
    await until(() => salesCalls(calls).length === 2)
    await device.idle()
    const [first, second] = salesCalls(calls)
    const salesOf = (call: typeof first) => (JSON.parse(String(call?.init.body)) as { sales: Sale[] }).sales
    expect(salesOf(second)).toEqual(salesOf(first))
    expect(new Headers(second?.init.headers).get('idempotency-key')).toBe(
      new Headers(first?.init.headers).get('idempotency-key'),
    )
    expect(device.queue.generation).toBe('g2')
    expect(device.queue.kept.map((s) => s.id)).toEqual(['s1'])
    expect(device.queue.length).toBe(0)
    device.stop()
    await running
    device.close()
  })

  test('a revoked key refused at the heartbeat stops it too', async () => {
    const { device } = deviceWith(() => json(401, { message: '해제된 단말기입니다.' }))
    expect(await device.start()).toEqual({
      refused: { status: 401, message: '해제된 단말기입니다.', call: 'heartbeat' },
    })
    device.close()
  })

  test('heartbeats carry the number of sales it holds', async () => {
    const pendings: number[] = []
    const { device } = deviceWith(({ url, init }) => {
      if (url.endsWith('/heartbeat')) {
        pendings.push((JSON.parse(String(init.body)) as { pending: number }).pending)
        return new Response(null, { status: 204 })
      }
      return json(503, { message: '잠시 후' })
    })
    device.take([sale(1), sale(2), sale(3)])
    void device.start()
    await new Promise((resolve) => setTimeout(resolve, 20))
    device.stop()
    expect(pendings[0]).toBe(3)
    device.close()
  })

  test('rejected sales leave the queue with the batch and are reported', async () => {
    const lines: string[] = []
    const dir = freshDir()
    writeIdentity(dir, { server: 'http://device.test', deviceId: 7, storeId: 2, key: 'k', pairedAt: 'then' })
    const fetch: Fetch = async (url) =>
      url.endsWith('/heartbeat')
        ? new Response(null, { status: 204 })
        : json(200, {
            accepted: 1,
            duplicates: 0,
            rejected: [{ id: 's2', message: '금액은 정수여야 합니다.' }],
            serverTime: '',
          })
    const device = new Device(dir, { ...fast, fetch, log: (line) => lines.push(line) })
    device.take([sale(1), sale(2)])
    void device.start()
    await device.idle()
    device.stop()
    expect(device.queue.length).toBe(0)
    expect(lines).toContain('sale s2 rejected: 금액은 정수여야 합니다.')
    device.close()
  })
})

describe('an acknowledgement', () => {
  const answer = (body: unknown) => () => json(200, body)
  test.each([
    ['an answer of another shape', answer({ ok: true })],
    ['a page, not the answer', () => new Response('<html>로그인</html>', { status: 200 })],
    ['an empty 204', () => new Response(null, { status: 204 })],
    ['counts that leave a sale out', answer({ accepted: 1, duplicates: 0, rejected: [], serverTime: '' })],
    [
      'counts of more sales than were sent',
      answer({ accepted: 2, duplicates: 1, rejected: [], serverTime: '' }),
    ],
    [
      'a rejection of a sale not sent',
      answer({ accepted: 1, duplicates: 0, rejected: [{ id: 's9', message: '오류' }], serverTime: '' }),
    ],
    [
      'one sale rejected twice',
      answer({
        accepted: 0,
        duplicates: 0,
        rejected: [
          { id: 's1', message: '오류' },
          { id: 's1', message: '오류' },
        ],
        serverTime: '',
      }),
    ],
    [
      'counts that are not whole numbers',
      answer({ accepted: 1.5, duplicates: 0.5, rejected: [], serverTime: '' }),
    ],
  ])(
    '%s is none: the batch stays and is sent again with the same key until every sale is accounted for',
    async (_, bad) => {
      let bads = 2
      const { device, calls } = deviceWith(({ url }) => {
        if (url.endsWith('/heartbeat')) return new Response(null, { status: 204 })
        return bads-- > 0
          ? bad()
          : json(200, {
              accepted: 1,
              duplicates: 0,
              rejected: [{ id: 's2', message: '금액은 정수여야 합니다.' }],
              serverTime: '',
            })
      })
      device.take([sale(1), sale(2)])
      const running = device.start()
      await device.idle()
      device.stop()
      expect(await running).toEqual({})
      const sent = salesCalls(calls)
      expect(sent).toHaveLength(3)
      const keys = sent.map((call) => (call.init.headers as Record<string, string>)['idempotency-key'])
      expect(new Set(keys).size).toBe(1)
      expect(device.queue.length).toBe(0)
      device.close()
    },
  )

  test('a duplicate counts as accounted for: stored by an earlier attempt', async () => {
    const { device, calls } = deviceWith(({ url }) =>
      url.endsWith('/heartbeat')
        ? new Response(null, { status: 204 })
        : json(200, { accepted: 0, duplicates: 2, rejected: [], serverTime: '' }),
    )
    device.take([sale(1), sale(2)])
    void device.start()
    await device.idle()
    device.stop()
    expect(salesCalls(calls)).toHaveLength(1)
    expect(device.queue.length).toBe(0)
    device.close()
  })

  test('pairing answered with anything but a device, a store and a key pairs nothing', async () => {
    const dir = freshDir()
    const fetch: Fetch = async () => json(200, { deviceId: 1, storeId: 2 })
    await expect(pair(dir, 'http://localhost:3000', 'ABCD-1234', { fetch })).rejects.toThrow(PairingError)
    expect(readIdentity(dir)).toBeUndefined()
  })
})

describe('backoff', () => {
  test('grows exponentially with jitter up to the cap, and never undercuts Retry-After', () => {
    const limits = { baseMs: 1000, maxMs: 60_000 }
    expect(backoffMs(0, limits, undefined, () => 0)).toBe(500)
    expect(backoffMs(0, limits, undefined, () => 1)).toBe(1000)
    expect(backoffMs(3, limits, undefined, () => 0.5)).toBe(6000)
    expect(backoffMs(20, limits, undefined, () => 1)).toBe(60_000)
    expect(backoffMs(0, limits, 7000, () => 1)).toBe(7000)
  })
  test('Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('3')).toBe(3000)
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000)
    expect(retryAfterMs(null)).toBeUndefined()
    expect(retryAfterMs('soon')).toBeUndefined()
  })
})

describe('pairing and delivery over HTTP', () => {
  test('pairs with a code, keeps the key owner-only, and a used code is refused', async () => {
    const server = await startFakeServer()
    try {
      const code = server.addPairingCode(3)
      const dir = freshDir()
      const identity = await pair(dir, server.url, code)
      expect(identity).toMatchObject({ storeId: 3, deviceId: 1, server: server.url })
      expect(readIdentity(dir)?.key).toBe(identity.key)
      expect(statSync(path.join(dir, 'device.json')).mode & 0o777).toBe(0o600)
      await expect(pair(freshDir(), server.url, code)).rejects.toThrow(PairingError)
    } finally {
      await server.close()
    }
  })

  test('through refusals, time-outs, cut connections, 409, 429 and 503 every sale arrives exactly once', async () => {
    const server = await startFakeServer({ chaos: 0.5, outages: { everyMs: 150, downMs: 40 } })
    try {
      const dir = freshDir()
      await pair(dir, server.url, server.addPairingCode())
      const device = new Device(dir, {
        retry: { baseMs: 5, maxMs: 50 },
        timeoutMs: 200,
        heartbeatMs: 50,
        batchSales: 20,
      })
      const running = device.start()
      for (let n = 0; n < 400; n += 40) {
        device.take(Array.from({ length: 40 }, (_, i) => sale(n + i)))
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      // Small batches, so that many go through the chaos.
      await device.idle()
      device.stop()
      await running
      device.close()
      const ids = server.stored.map((s) => s.id).sort()
      expect(ids).toEqual(Array.from({ length: 400 }, (_, n) => `s${n}`).sort())
      expect(Object.keys(server.statuses).length).toBeGreaterThan(2)
    } finally {
      await server.close()
    }
  })
})

describe('plain http to another machine', () => {
  const answered = () => {
    const calls: string[] = []
    const fetch: Fetch = async (url) => {
      calls.push(url)
      return json(200, { deviceId: 1, storeId: 2, key: 'k' })
    }
    return { calls, fetch }
  }

  test.each(['http://192.168.0.10:3000', 'http://sales.example.com', 'http://10.0.0.5'])(
    'pairing with %s is refused before anything is sent (the code and the key would travel readable)',
    async (server) => {
      const { calls, fetch } = answered()
      const dir = freshDir()
      await expect(pair(dir, server, 'ABCD-1234', { fetch })).rejects.toThrow(/--allow-http/)
      expect(calls).toEqual([])
      expect(readIdentity(dir)).toBeUndefined()
    },
  )

  test('is allowed when asked for (--allow-http), and https or this machine always', async () => {
    for (const [server, allowHttp] of [
      ['http://192.168.0.10:3000', true],
      ['https://sales.example.com', false],
      ['http://localhost:3000', false],
      ['http://127.0.0.1:3000', false],
      ['http://[::1]:3000', false],
    ] as const) {
      const { calls, fetch } = answered()
      await pair(freshDir(), server, 'ABCD-1234', { fetch, allowHttp })
      expect(calls).toHaveLength(1)
    }
  })

  test('running a device paired with it before is warned about, not refused (an update must not stop its sales)', async () => {
    const dir = freshDir()
    writeIdentity(dir, {
      server: 'http://10.0.0.5:3000',
      deviceId: 7,
      storeId: 2,
      key: 'k',
      pairedAt: 'then',
    })
    const run = (...flags: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'device/main.ts', 'run', '--dir', dir, '--exit-when-empty', ...flags],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        )
        let stderr = ''
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString()
        })
        child.on('close', (code) => resolve({ code, stderr }))
      })
    for (const flags of [[], ['--allow-http']]) {
      const ran = await run(...flags, '--heartbeat-s', '3600', '--timeout-s', '0.2')
      expect(ran.code).toBe(0)
      expect(ran.stderr).toMatch(/warning: .*http:\/\/10\.0\.0\.5:3000.*readable/is)
    }
  }, 30_000)
})
