// Several instances on one PostgreSQL (docs/product.md §11): the same batch sent to two instances at
// once is stored once; a second request with a key whose first is still running gets 409; a batch
// spanning two years never deadlocks with another; a key revoked on one instance is refused by the
// other at once.
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { queryRows } from '../../../server/db/client.ts'
import { messages } from '../../../server/errors.ts'
import { answerOf, type OpenApiDocument, problems } from '../openapi-check.ts'
import { bearer, postgresUrlOf, resetDatabase, type TestApp, testClock, twoInstances } from '../test-app.ts'
import { pairedDevice, postSales, type SaleIn, storedSales, storeWithPeople } from './helpers.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
let one: TestApp
let two: TestApp
let people: Awaited<ReturnType<typeof storeWithPeople>>

twoInstances({ clock, env: { DEVICE_REQUESTS_PER_MINUTE: '100000' } }, async (apps) => {
  one = apps.one
  two = apps.two
  await resetDatabase(one)
  people = await storeWithPeople(one)
})

const methods = ['card', 'cash', 'coin', 'mobile'] as const
const salesFrom = (prefix: string, count: number, at = '2026-03-15T02:00:00.000Z'): SaleIn[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    createdAt: at,
    amount: 1000 + i,
    machine: `W${i % 5}`,
    method: methods[i % 4],
  }))
/** A refund of `of` (a sale of salesFrom), taking its sale's machine and method. */
const refundOf = (id: string, of: string, amount: number, at = '2026-03-15T02:00:00.000Z'): SaleIn => ({
  id,
  createdAt: at,
  amount: -amount,
  refundOf: of,
})

describe('two instances on one PostgreSQL', () => {
  it('store the same batch once, sent to both at once, under one key or under two', async () => {
    const { key } = await pairedDevice(one, people.storeId, people.owner)
    for (let round = 0; round < 8; round++) {
      const sales = salesFrom(`r${round}-`, 100)
      const same = await Promise.all([
        postSales(one, key, `same-${round}`, sales),
        postSales(two, key, `same-${round}`, sales),
      ])
      const statuses = same.map((response) => response.statusCode).sort()
      expect([
        [200, 200],
        [200, 409],
      ]).toContainEqual(statuses)
      for (const response of same.filter((r) => r.statusCode === 409))
        expect(response.json().message).toBe(messages.idempotencyKeyRunning)
      // Once the first has answered, the same key on either instance replays it.
      const replay = await postSales(two, key, `same-${round}`, sales)
      expect(replay.json()).toMatchObject({ accepted: 100, duplicates: 0 })
      // The same refund in both, and one of each: the refunds of r…-1 (1,001 won) fit once each.
      const [a, b] = await Promise.all([
        postSales(one, key, `a-${round}`, [
          ...sales,
          ...salesFrom(`x${round}-`, 20),
          refundOf(`f${round}-both`, `r${round}-1`, 500),
          refundOf(`f${round}-a`, `x${round}-3`, 1003),
        ]),
        postSales(two, key, `b-${round}`, [
          ...salesFrom(`x${round}-`, 20),
          refundOf(`f${round}-both`, `r${round}-1`, 500),
          ...sales,
          refundOf(`f${round}-b`, `r${round}-1`, 501),
        ]),
      ])
      expect(a?.statusCode).toBe(200)
      expect(b?.statusCode).toBe(200)
      expect([...(a?.json().rejected ?? []), ...(b?.json().rejected ?? [])]).toEqual([])
      expect((a?.json().accepted ?? 0) + (b?.json().accepted ?? 0)).toBe(23)
      expect((a?.json().duplicates ?? 0) + (b?.json().duplicates ?? 0)).toBe(221)
    }
    const stored = await storedSales(one, people.storeId)
    expect(stored).toHaveLength(8 * 123)
    expect(new Set(stored.map((line) => line.split(' ')[1])).size).toBe(8 * 123)
    // Each record as sent, its machine and method too; a refund with its sale's.
    const expected = Array.from({ length: 8 }, (_, round) => [
      ...[...salesFrom(`r${round}-`, 100), ...salesFrom(`x${round}-`, 20)].map(
        (sale) => `${sale.id} ${sale.amount} ${sale.machine} ${sale.method} -`,
      ),
      `f${round}-both -500 W1 cash r${round}-1`,
      `f${round}-b -501 W1 cash r${round}-1`,
      `f${round}-a -1003 W3 mobile x${round}-3`,
    ]).flat()
    const rows = await queryRows<{ line: string }>(
      one.db,
      sql`select concat_ws(' ', device_sale_id, amount, machine, method, coalesce(refund_of, '-')) as line
          from usages where store_id = ${people.storeId}`,
    )
    expect(rows.map((row) => row.line).sort()).toEqual(expected.sort())
  })

  it('answer 409 to a key whose first request is still running, then replay its answer', async () => {
    const { key } = await pairedDevice(one, people.storeId, people.owner)
    const document = (await one.inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDocument
    const holder = new pg.Client({ connectionString: postgresUrlOf(one) })
    await holder.connect()
    try {
      // Another writer of the store's year holds its version row: the first batch waits inside its
      // transaction, with its key's lock taken.
      await holder.query(
        'insert into usage_years (store_id, year) values ($1, 2026) on conflict do nothing',
        [people.storeId],
      )
      await holder.query('begin')
      await holder.query('select 1 from usage_years where store_id = $1 and year = 2026 for update', [
        people.storeId,
      ])
      const sales = salesFrom('held-', 10)
      const first = postSales(one, key, 'held', sales)
      for (let waited = 0; ; waited += 10) {
        const { rows } = await holder.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        )
        if (rows[0].n > 0) break
        if (waited > 5000) throw new Error('the first batch never waited')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      const second = await postSales(two, key, 'held', sales)
      expect(second.statusCode).toBe(409)
      expect(second.headers['retry-after']).toBe('1')
      expect(problems(document, 'POST', '/api/v0/device/sales', answerOf(second))).toEqual([])
      await holder.query('commit')
      const answered = await first
      expect(answered.statusCode).toBe(200)
      const again = await postSales(two, key, 'held', sales)
      expect(again.body).toBe(answered.body)
    } finally {
      await holder.end()
    }
  })

  it('never deadlock on batches spanning two years, sent at once in opposite orders', async () => {
    const [a, b] = [
      await pairedDevice(one, people.storeId, people.owner),
      await pairedDevice(two, people.storeId, people.owner),
    ]
    const newYear = (prefix: string) => [
      ...salesFrom(`${prefix}-old-`, 5, '2025-12-31T23:59:59.000Z'),
      ...salesFrom(`${prefix}-new-`, 5, '2026-01-01T00:00:00.000Z'),
    ]
    for (let round = 0; round < 6; round++) {
      const answers = await Promise.all([
        postSales(one, a.key, `y${round}`, newYear(`a${round}`)),
        postSales(two, b.key, `y${round}`, newYear(`b${round}`).reverse()),
      ])
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200])
    }
  })

  it('refuse a key revoked on the other instance at once', async () => {
    const device = await pairedDevice(one, people.storeId, people.owner)
    expect((await postSales(two, device.key, 'before', salesFrom('rv-', 1))).statusCode).toBe(200)
    const revoked = await one.inject({
      method: 'DELETE',
      url: `/api/v0/store/${people.storeId}/devices/${device.deviceId}`,
      headers: bearer(people.owner),
    })
    expect(revoked.statusCode).toBe(204)
    expect((await postSales(two, device.key, 'after', salesFrom('rv2-', 1))).statusCode).toBe(401)
    const [row] = await queryRows<{ n: number }>(
      one.db,
      sql`select count(*)::int as n from usages where device_id = ${device.deviceId}`,
    )
    expect(row?.n).toBe(1)
  })
})
