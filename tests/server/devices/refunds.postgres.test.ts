// Refunds at most their sale, whatever the concurrency (docs/product.md §14, decision 170): batches of
// one device refunding one sale, under different Idempotency-Keys, sent at once to two instances on one
// PostgreSQL, never refund more than the sale together; a batch storing sales and refunds and one of
// refunds only, at once, never deadlock.
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { saleMessages } from '../../../domain/sales.ts'
import { queryRows } from '../../../server/db/client.ts'
import { resetDatabase, type TestApp, testClock, twoInstances } from '../test-app.ts'
import { pairedDevice, postSales, storeWithPeople } from './helpers.ts'

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

const at = '2026-03-15T02:00:00.000Z'

describe('refunds sent at once to two instances', () => {
  it('never refund more than their sale together', async () => {
    const { key, deviceId } = await pairedDevice(one, people.storeId, people.owner)
    for (let round = 0; round < 10; round++) {
      const original = `s${round}`
      const stored = await postSales(one, key, `sale-${round}`, [
        { id: original, createdAt: at, amount: 10_000, machine: 'W1', method: 'card' },
      ])
      expect(stored.json()).toMatchObject({ accepted: 1 })
      // Six batches of 4,000 each: two fit in 10,000, the others are too much.
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          postSales(n % 2 ? two : one, key, `refund-${round}-${n}`, [
            { id: `r${round}-${n}`, createdAt: at, amount: -4000, refundOf: original },
          ]),
        ),
      )
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200, 200])
      const accepted = answers.reduce((sum, answer) => sum + answer.json().accepted, 0)
      expect(accepted).toBe(2)
      for (const answer of answers.filter((a) => a.json().accepted === 0))
        expect(answer.json().rejected).toEqual([
          { id: expect.any(String), message: saleMessages.refundTooLarge },
        ])
      const [row] = await queryRows<{ refunded: number; machines: string }>(
        one.db,
        sql`select sum(amount)::int as refunded, string_agg(distinct machine || ' ' || method, ',') as machines
            from usages where device_id = ${deviceId} and refund_of = ${original}`,
      )
      expect(row).toEqual({ refunded: -8000, machines: 'W1 card' })
    }
  })

  it('never deadlock: sales with refunds on one instance, refunds of those sales on the other', async () => {
    const { key, deviceId } = await pairedDevice(one, people.storeId, people.owner)
    const sales = Array.from({ length: 20 }, (_, n) => ({ id: `d${n}`, createdAt: at, amount: 1000 }))
    expect((await postSales(one, key, 'sales', sales)).json()).toMatchObject({ accepted: 20 })
    for (let round = 0; round < 6; round++) {
      const refunds = (prefix: string) =>
        sales.map((sale) => ({
          id: `${prefix}${round}-${sale.id}`,
          createdAt: at,
          amount: -50,
          refundOf: sale.id,
        }))
      const answers = await Promise.all([
        postSales(one, key, `mixed-${round}`, [
          { id: `new-${round}`, createdAt: at, amount: 500 },
          ...refunds('a'),
          { id: `rn-${round}`, createdAt: at, amount: -500, refundOf: `new-${round}` },
        ]),
        postSales(two, key, `refunds-${round}`, refunds('b').reverse()),
      ])
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200])
      expect(answers[0]?.json()).toMatchObject({ accepted: 22, rejected: [] })
      expect(answers[1]?.json()).toMatchObject({ accepted: 20, rejected: [] })
    }
    const [row] = await queryRows<{ refunded: number }>(
      one.db,
      sql`select sum(amount)::int as refunded from usages where device_id = ${deviceId} and refund_of like 'd%'`,
    )
    expect(row?.refunded).toBe(-6 * 2 * 20 * 50)
  })
})
