// The write path of the store's machines (docs/product.md §14, decisions 170–172): a sale's machine,
// method and refunded sale, checked one by one and stored; refunds judged against the sale they
// refund; machines made by the sales and the heartbeats that name them; the heartbeat's terminal and
// failed payments; and what the owner's device list shows of them.
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { saleMessages } from '../../../domain/sales.ts'
import { queryRows } from '../../../server/db/client.ts'
import { messages } from '../../../server/errors.ts'
import { bearer, sharedTestApp, type TestApp, testClock } from '../test-app.ts'
import { pairedDevice, postSales, storeWithPeople } from './helpers.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
let people: Awaited<ReturnType<typeof storeWithPeople>>
const current = sharedTestApp({
  clock,
  env: { DEVICE_REQUESTS_PER_MINUTE: '100000' },
  setup: async (app) => {
    people = await storeWithPeople(app)
  },
})

const at = '2026-03-15T02:00:00.000Z'
const sale = (id: string | number, amount: number, fields: Record<string, unknown> = {}) => ({
  id,
  createdAt: at,
  amount,
  ...fields,
})

/** The device's stored records as `id amount machine method refundOf` lines, in id order. */
async function records(app: TestApp, deviceId: number) {
  const rows = await queryRows<{ line: string }>(
    app.db,
    sql`select concat_ws(' ', device_sale_id, amount, coalesce(machine, '-'), coalesce(method, '-'),
          coalesce(refund_of, '-')) as line
        from usages where device_id = ${deviceId} order by device_sale_id`,
  )
  return rows.map((row) => row.line)
}

async function machineRows(app: TestApp) {
  return queryRows<Record<string, unknown>>(
    app.db,
    sql`select machine, state, to_char(state_since at time zone 'UTC', 'HH24:MI') as state_since, code,
          reported_kind, device_id, to_char(reported_at at time zone 'UTC', 'HH24:MI') as reported_at,
          to_char(last_sale_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_sale_at,
          to_char(first_seen_at at time zone 'UTC', 'HH24:MI') as first_seen_at
        from machines where store_id = ${people.storeId} order by machine`,
  )
}

describe("a sale's machine, method and refunded sale", () => {
  it('are stored when good; each bad one rejects its sale alone, with its own Korean message', async () => {
    const { app } = current
    const { key, deviceId } = await pairedDevice(app, people.storeId, people.owner)
    const response = await postSales(app, key, 'fields', [
      sale('plain', 1000),
      sale('full', 4000, { machine: '세탁기 3', method: 'card' }),
      sale('long', 1000, { machine: 'W'.repeat(33) }),
      sale('edge', 1000, { machine: ' W1' }),
      sale('number', 1000, { machine: 5 }),
      sale('method', 1000, { method: 'bitcoin' }),
      sale('refund-bad', -1000, { refundOf: { id: 'full' } }),
      sale('refund-negative-id', -1000, { refundOf: -3 }),
      sale('refund-positive', 1000, { refundOf: 'full' }),
      sale('refund-zero', 0, { refundOf: 'full' }),
      sale('refund', -1000, { refundOf: 'full' }),
      sale(7, 2000, { machine: 'W1', method: 'coin' }),
      sale('refund-of-number', -500, { refundOf: 7, method: 'cash' }),
    ])
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({
      accepted: 5,
      duplicates: 0,
      rejected: [
        { id: 'long', message: saleMessages.machine },
        { id: 'edge', message: saleMessages.machine },
        { id: 'number', message: saleMessages.machine },
        { id: 'method', message: saleMessages.method },
        { id: 'refund-bad', message: saleMessages.refundOf },
        { id: 'refund-negative-id', message: saleMessages.refundOf },
        { id: 'refund-positive', message: saleMessages.refundOfNotRefund },
        { id: 'refund-zero', message: saleMessages.refundOfNotRefund },
      ],
    })
    for (const message of Object.values(saleMessages)) expect(message).toMatch(/[가-힣]/)
    expect(new Set(Object.values(saleMessages)).size).toBe(Object.values(saleMessages).length)
    // A refund naming no machine or method takes its sale's; one naming its method keeps it.
    expect(await records(app, deviceId)).toEqual([
      '7 2000 W1 coin -',
      'full 4000 세탁기 3 card -',
      'plain 1000 - - -',
      'refund -1000 세탁기 3 card full',
      'refund-of-number -500 W1 cash 7',
    ])
  })

  it('make another sale of one id, in the batch or stored before: rejected as another sale', async () => {
    const { app } = current
    const { key, deviceId } = await pairedDevice(app, people.storeId, people.owner)
    const first = await postSales(app, key, 'one', [
      sale('a', 1000, { machine: 'W1', method: 'card' }),
      sale('a', 1000, { machine: 'W2', method: 'card' }),
      sale('a', 1000, { machine: 'W1', method: 'card' }),
      sale('b', 1000, { machine: 'W1' }),
      sale('b', 1000, { machine: 'W1', method: 'cash' }),
    ])
    expect(first.json()).toMatchObject({
      accepted: 2,
      duplicates: 1,
      rejected: [
        { id: 'a', message: saleMessages.otherSale },
        { id: 'b', message: saleMessages.otherSale },
      ],
    })
    const again = await postSales(app, key, 'two', [
      sale('a', 1000, { machine: 'W1', method: 'card' }),
      sale('a', 1000, { machine: 'W1' }),
      sale('b', 1000, { machine: 'W1', method: 'coin' }),
      sale('b', 1000),
      sale('r', -500, { refundOf: 'a' }),
    ])
    // Each repeat of an id after its first in the batch is judged against that first (in the batch).
    expect(again.json()).toMatchObject({
      accepted: 1,
      duplicates: 1,
      rejected: [
        { id: 'a', message: saleMessages.otherSale },
        { id: 'b', message: saleMessages.otherSale },
        { id: 'b', message: saleMessages.otherSale },
      ],
    })
    // A stored refund sent again: the same (its machine and method taken from its sale, or said the
    // same) is a duplicate; another refunded sale, amount or method is another sale.
    for (const [n, same] of [
      sale('r', -500, { refundOf: 'a' }),
      sale('r', -500, { refundOf: 'a', machine: 'W1', method: 'card' }),
    ].entries())
      expect((await postSales(app, key, `same-${n}`, [same])).json()).toMatchObject({
        accepted: 0,
        duplicates: 1,
        rejected: [],
      })
    for (const [n, changed] of [
      sale('r', -500, { refundOf: 'b' }),
      sale('r', -400, { refundOf: 'a' }),
      sale('r', -500, { refundOf: 'a', method: 'cash' }),
      sale('a', -500, { refundOf: 'b' }),
    ].entries())
      expect((await postSales(app, key, `other-${n}`, [changed])).json()).toMatchObject({
        accepted: 0,
        rejected: [{ message: saleMessages.otherSale }],
      })
    expect(await records(app, deviceId)).toEqual(['a 1000 W1 card -', 'b 1000 W1 - -', 'r -500 W1 card a'])
  })

  it('answer 422 to a key replayed with sales that differ in a machine, a method or a refunded sale', async () => {
    const { app } = current
    const { key } = await pairedDevice(app, people.storeId, people.owner)
    const sales = [sale('s', 3000, { machine: 'W1', method: 'card' }), sale('r', -1000, { refundOf: 's' })]
    const first = await postSales(app, key, 'k', sales)
    expect(first.json()).toMatchObject({ accepted: 2 })
    expect((await postSales(app, key, 'k', sales)).body).toBe(first.body)
    for (const other of [
      [sale('s', 3000, { machine: 'W2', method: 'card' }), sales[1]],
      [sale('s', 3000, { machine: 'W1', method: 'cash' }), sales[1]],
      [sale('s', 3000, { machine: 'W1' }), sales[1]],
      [sales[0], sale('r', -1000, { refundOf: 'x' })],
      [sales[0], sale('r', -1000)],
    ]) {
      const replay = await postSales(app, key, 'k', other)
      expect(replay.statusCode).toBe(422)
      expect(replay.json().message).toBe(messages.idempotencyKeyReused)
    }
  })
})

describe('refunds (decision 170)', () => {
  it('name a sale of the same device stored before or earlier in the batch, and never exceed it together', async () => {
    const { app } = current
    const device = await pairedDevice(app, people.storeId, people.owner)
    const other = await pairedDevice(app, people.storeId, people.owner, '다른 기기')
    expect((await postSales(app, other.key, 'o', [sale('theirs', 5000)])).json()).toMatchObject({
      accepted: 1,
    })
    expect(
      (await postSales(app, device.key, 'b1', [sale('s1', 5000), sale('r0', -1000)])).json(),
    ).toMatchObject({ accepted: 2 })
    const answer = await postSales(app, device.key, 'b2', [
      sale('r1', -2000, { refundOf: 's1' }),
      sale('r2', -1000, { refundOf: 'later' }),
      sale('later', 3000),
      sale('r3', -1000, { refundOf: 'later' }),
      sale('r4', -100, { refundOf: 'unknown' }),
      sale('r5', -100, { refundOf: 'theirs' }),
      sale('r6', -100, { refundOf: 'r1' }),
      sale('r7', -100, { refundOf: 'r0' }),
      // 5,000 − 2,000 leaves 3,000: 3,500 is too much, then 3,000 fits, then nothing does.
      sale('r8', -3500, { refundOf: 's1' }),
      sale('r9', -3000, { refundOf: 's1' }),
      sale('r10', -1, { refundOf: 's1' }),
      sale('r11', -2000, { refundOf: 'later' }),
      sale('r12', -1, { refundOf: 'later' }),
    ])
    expect(answer.json()).toMatchObject({
      accepted: 5,
      duplicates: 0,
      rejected: [
        { id: 'r2', message: saleMessages.refundUnknown },
        { id: 'r4', message: saleMessages.refundUnknown },
        { id: 'r5', message: saleMessages.refundUnknown },
        { id: 'r6', message: saleMessages.refundOfRefund },
        { id: 'r7', message: saleMessages.refundOfRefund },
        { id: 'r8', message: saleMessages.refundTooLarge },
        { id: 'r10', message: saleMessages.refundTooLarge },
        { id: 'r12', message: saleMessages.refundTooLarge },
      ],
    })
    // The refund sent before its sale, once that sale is stored, is accepted while something is left.
    expect(
      (await postSales(app, device.key, 'b3', [sale('r2', -1000, { refundOf: 'later' })])).json(),
    ).toMatchObject({ accepted: 0, rejected: [{ message: saleMessages.refundTooLarge }] })
    expect(
      (await postSales(app, device.key, 'b4', [sale('r2', -1, { refundOf: 'theirs' })])).json(),
    ).toMatchObject({ accepted: 0, rejected: [{ message: saleMessages.refundUnknown }] })
    const [sums] = await queryRows<{ s1: number; later: number }>(
      app.db,
      sql`select sum(amount) filter (where refund_of = 's1')::int as s1,
            sum(amount) filter (where refund_of = 'later')::int as later
          from usages where device_id = ${device.deviceId}`,
    )
    expect(sums).toEqual({ s1: -5000, later: -3000 })
  })
})

describe('machines named by sales', () => {
  it('appear with the first sale naming them and keep their newest sale, refunds aside', async () => {
    const { app } = current
    const { key } = await pairedDevice(app, people.storeId, people.owner)
    await postSales(app, key, 'm1', [
      { id: 1, createdAt: '2026-03-15T01:00:00.000Z', amount: 4000, machine: 'W1' },
      { id: 2, createdAt: '2026-03-15T02:00:00.000Z', amount: 3000, machine: 'W1' },
      { id: 3, createdAt: '2026-03-14T02:00:00.000Z', amount: 3000, machine: 'D1' },
      { id: 4, createdAt: '2026-03-15T02:30:00.000Z', amount: -3000, refundOf: 3 },
      { id: 5, createdAt: '2026-03-15T02:40:00.000Z', amount: -1000, machine: 'R1' },
      { id: 6, createdAt: '2026-03-15T02:40:00.000Z', amount: 1000, machine: 'bad name ' },
    ])
    clock.advance(60_000)
    await postSales(app, key, 'm2', [
      { id: 7, createdAt: '2026-03-15T01:30:00.000Z', amount: 4000, machine: 'W1' },
      { id: 8, createdAt: '2026-03-15T02:50:00.000Z', amount: 4000, machine: 'D1' },
    ])
    const rows = await machineRows(app)
    expect(
      rows.map(({ machine, last_sale_at, first_seen_at, state }) => ({
        machine,
        last_sale_at,
        first_seen_at,
        state,
      })),
    ).toEqual([
      { machine: 'D1', last_sale_at: '2026-03-15T02:50:00.000Z', first_seen_at: '03:00', state: null },
      { machine: 'R1', last_sale_at: null, first_seen_at: '03:00', state: null },
      { machine: 'W1', last_sale_at: '2026-03-15T02:00:00.000Z', first_seen_at: '03:00', state: null },
    ])
  })
})

describe('the heartbeat', () => {
  const beat = (key: string, body: Record<string, unknown>) =>
    current.app.inject({
      method: 'POST',
      url: '/api/v0/device/heartbeat',
      headers: bearer(key),
      payload: { pending: 0, ...body },
    })

  it("keeps the machines' states (since when they changed), the terminal and the failed payments", async () => {
    const { app } = current
    const device = await pairedDevice(app, people.storeId, people.owner)
    const other = await pairedDevice(app, people.storeId, people.owner, '건조기 쪽')
    await postSales(app, device.key, 's', [sale(1, 4000, { machine: 'W1' })])
    expect(
      (
        await beat(device.key, {
          machines: [
            { machine: 'W1', kind: 'washer', state: 'running' },
            { machine: 'W2', state: 'error', code: 'E21' },
            { machine: 'D1', kind: 'dryer', state: 'idle', code: 'ignored' },
          ],
          terminal: 'ok',
          failedPayments: 0,
        })
      ).statusCode,
    ).toBe(204)
    clock.advance(60_000)
    expect(
      (
        await beat(device.key, {
          machines: [
            { machine: 'W1', state: 'running' },
            { machine: 'W2', state: 'idle' },
          ],
          terminal: 'down',
          failedPayments: 3,
        })
      ).statusCode,
    ).toBe(204)
    clock.advance(60_000)
    expect(
      (await beat(other.key, { machines: [{ machine: 'D1', state: 'offline' }], failedPayments: 2 }))
        .statusCode,
    ).toBe(204)
    expect((await beat(device.key, { terminal: 'down' })).statusCode).toBe(204)
    expect(await machineRows(app)).toEqual([
      {
        machine: 'D1',
        state: 'offline',
        state_since: '03:02',
        code: null,
        reported_kind: 'dryer',
        device_id: other.deviceId,
        reported_at: '03:02',
        last_sale_at: null,
        first_seen_at: '03:00',
      },
      {
        machine: 'W1',
        state: 'running',
        state_since: '03:00',
        code: null,
        reported_kind: 'washer',
        device_id: device.deviceId,
        reported_at: '03:01',
        last_sale_at: at,
        first_seen_at: '03:00',
      },
      {
        machine: 'W2',
        state: 'idle',
        state_since: '03:01',
        code: null,
        reported_kind: null,
        device_id: device.deviceId,
        reported_at: '03:01',
        last_sale_at: null,
        first_seen_at: '03:00',
      },
    ])
    const failures = await queryRows<{ device_id: number; count: number; at: string }>(
      app.db,
      sql`select device_id, count, to_char(at at time zone 'UTC', 'HH24:MI') as at
          from payment_failures where store_id = ${people.storeId} order by id`,
    )
    expect(failures).toEqual([
      { device_id: device.deviceId, count: 3, at: '03:01' },
      { device_id: other.deviceId, count: 2, at: '03:02' },
    ])
    const list = await app.inject({
      method: 'GET',
      url: `/api/v0/store/${people.storeId}/devices`,
      headers: bearer(people.owner),
    })
    const devices = list.json().devices as Record<string, unknown>[]
    // Both added at the same instant: listed in their (random) ids' order.
    expect(
      devices.map(({ id, terminal, terminalSince, machines }) => ({ id, terminal, terminalSince, machines })),
    ).toEqual(
      [
        {
          id: device.deviceId,
          terminal: 'down',
          terminalSince: '2026-03-15T03:01:00.000Z',
          machines: [
            { machine: 'W1', state: 'running' },
            { machine: 'W2', state: 'idle' },
          ],
        },
        {
          id: other.deviceId,
          terminal: null,
          terminalSince: null,
          machines: [{ machine: 'D1', state: 'offline' }],
        },
      ].sort((a, b) => a.id - b.id),
    )
  })

  it('refuses a bad machine, too many of them, a bad terminal or failed payments with 400, keeping nothing', async () => {
    const { app } = current
    const device = await pairedDevice(app, people.storeId, people.owner)
    const many = Array.from({ length: 65 }, (_, i) => ({ machine: `W${i}`, state: 'idle' }))
    const bad: [Record<string, unknown>, string][] = [
      [
        {
          machines: [
            { machine: 'W1', state: 'idle' },
            { machine: 'W'.repeat(33), state: 'idle' },
          ],
        },
        messages.heartbeatMachines,
      ],
      [{ machines: [{ machine: 'W1 ', state: 'idle' }] }, messages.heartbeatMachines],
      [{ machines: [{ machine: 'W1', state: 'broken' }] }, messages.heartbeatMachines],
      [{ machines: [{ machine: 'W1', state: 'idle', kind: 'boat' }] }, messages.heartbeatMachines],
      [
        {
          machines: [
            { machine: 'W1', state: 'idle' },
            { machine: 'W1', state: 'error' },
          ],
        },
        messages.heartbeatMachines,
      ],
      [{ machines: many }, messages.heartbeatMachines],
      [{ machines: 'W1' }, messages.heartbeatMachines],
      [{ machines: [{ machine: 'W1', state: 'error', code: 'E\u000021' }] }, messages.heartbeatMachines],
      [{ machines: [{ machine: 'W1\u0000', state: 'idle' }] }, messages.heartbeatMachines],
      [{ terminal: 'broken', machines: [{ machine: 'W1', state: 'idle' }] }, messages.terminal],
      [{ failedPayments: 1_000_001, terminal: 'ok' }, messages.failedPayments],
      [{ failedPayments: -1 }, messages.failedPayments],
      [{ failedPayments: 1.5 }, messages.failedPayments],
    ]
    for (const [body, message] of bad) {
      const response = await beat(device.key, body)
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(response.json().message).toBe(message)
    }
    expect(await machineRows(app)).toEqual([])
    const [row] = await queryRows<{ terminal: string | null; failures: number }>(
      app.db,
      sql`select terminal, (select count(*)::int from payment_failures) as failures from devices where id = ${device.deviceId}`,
    )
    expect(row).toEqual({ terminal: null, failures: 0 })
    expect((await beat(device.key, { machines: many.slice(0, 64) })).statusCode).toBe(204)
    expect(await machineRows(app)).toHaveLength(64)
  })
})
