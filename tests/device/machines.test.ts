// The reference device's part of the store's machines (docs/product.md §14): a sale read from input may
// name its machine, payment method and refunded sale, checked as the server checks them, journaled and
// sent as given; each heartbeat says what `storeReport` (the --machines file) tells of the store, and a
// heartbeat refused for it (400) is reported without stopping the device.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { Device } from '../../device/client.ts'
import type { Fetch } from '../../device/http.ts'
import { writeIdentity } from '../../device/identity.ts'
import { parseSaleLine } from '../../device/input.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function deviceWith(
  answer: (url: string, body: string) => Response,
  storeReport?: () => Record<string, unknown> | undefined,
) {
  const dir = mkdtempSync(path.join(tmpdir(), 'device-machines-'))
  dirs.push(dir)
  writeIdentity(dir, { server: 'http://device.test', deviceId: 7, storeId: 2, key: 'k3y', pairedAt: 'then' })
  const calls: { url: string; body: string }[] = []
  const fetch: Fetch = async (url, init) => {
    calls.push({ url, body: String(init.body) })
    return answer(url, String(init.body))
  }
  const log: string[] = []
  const options = {
    retry: { baseMs: 5, maxMs: 20 },
    heartbeatMs: 20,
    fetch,
    log: (line: string) => log.push(line),
  }
  return { device: new Device(dir, storeReport ? { ...options, storeReport } : options), calls, log, dir }
}

const at = '2026-11-25T09:00:00.000Z'
const accepted = (n: number) =>
  new Response(JSON.stringify({ accepted: n, duplicates: 0, rejected: [], serverTime: at }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  })

describe("a sale's machine, method and refunded sale", () => {
  test('are read from a line, checked, and kept only when given', () => {
    const line = (value: Record<string, unknown>) =>
      parseSaleLine(JSON.stringify({ id: 's', createdAt: at, ...value }))
    expect(line({ amount: 4000, machine: '세탁기 3', method: 'card' })).toEqual({
      sale: { id: 's', createdAt: at, amount: 4000, machine: '세탁기 3', method: 'card' },
    })
    expect(line({ amount: -4000, refundOf: 's0' })).toEqual({
      sale: { id: 's', createdAt: at, amount: -4000, refundOf: 's0' },
    })
    expect(line({ amount: 4000 })).toEqual({ sale: { id: 's', createdAt: at, amount: 4000 } })
    for (const bad of [
      { amount: 4000, machine: 'W'.repeat(33) },
      { amount: 4000, machine: ' W1' },
      { amount: 4000, method: 'bitcoin' },
      { amount: -4000, refundOf: 7 },
      { amount: 4000, refundOf: 's0' },
    ])
      expect(line(bad)).toHaveProperty('error')
  })

  test('are journaled and sent as given', async () => {
    const { device, calls, dir } = deviceWith((url) =>
      url.endsWith('/heartbeat') ? new Response(null, { status: 204 }) : accepted(2),
    )
    const sales = [
      { id: 's1', createdAt: at, amount: 4000, machine: 'W1', method: 'coin' },
      { id: 'r1', createdAt: at, amount: -4000, refundOf: 's1' },
    ]
    device.take(sales)
    device.close()
    // Read back from the journal by a device started anew.
    const again = new Device(dir, {
      retry: { baseMs: 5, maxMs: 20 },
      heartbeatMs: 60_000,
      fetch: async (url, init) => {
        calls.push({ url, body: String(init.body) })
        return url.endsWith('/heartbeat') ? new Response(null, { status: 204 }) : accepted(2)
      },
    })
    const done = again.start()
    await again.idle()
    again.stop()
    await done
    again.close()
    const sent = calls.find((call) => call.url.endsWith('/device/sales'))
    expect(JSON.parse(sent?.body ?? '{}').sales).toEqual(sales)
  })
})

describe('the heartbeat', () => {
  test("says what the store's report holds, read at each heartbeat, and goes on when it is refused", async () => {
    let report: Record<string, unknown> | undefined
    let beats = 0
    const { device, calls, log } = deviceWith(
      (url, body) => {
        if (!url.endsWith('/heartbeat')) return accepted(0)
        beats++
        return JSON.parse(body).terminal === 'broken'
          ? new Response(
              JSON.stringify({ message: '결제 단말기 상태(terminal)는 ok나 down이어야 합니다.' }),
              {
                status: 400,
              },
            )
          : new Response(null, { status: 204 })
      },
      () => report,
    )
    const done = device.start()
    const until = async (n: number) => {
      for (const deadline = Date.now() + 5000; beats < n; await new Promise((r) => setTimeout(r, 5)))
        if (Date.now() > deadline) throw new Error('no heartbeat')
    }
    await until(1)
    report = { machines: [{ machine: 'W1', state: 'running' }], terminal: 'ok' }
    await until(beats + 2)
    report = { terminal: 'broken' }
    await until(beats + 2)
    report = { terminal: 'down' }
    await until(beats + 2)
    device.stop()
    expect(await done).toEqual({})
    device.close()
    const bodies = calls
      .filter((call) => call.url.endsWith('/heartbeat'))
      .map((call) => JSON.parse(call.body))
    expect(bodies[0]).not.toHaveProperty('machines')
    expect(bodies).toContainEqual(
      expect.objectContaining({
        machines: [{ machine: 'W1', state: 'running' }],
        terminal: 'ok',
        pending: 0,
      }),
    )
    expect(bodies.at(-1)).toMatchObject({ terminal: 'down' })
    expect(log.some((line) => line.includes('결제 단말기 상태'))).toBe(true)
  })
})
