// Exactly once, whatever the batches (docs/product.md §11): a random stream of sales from two devices,
// split into batches, repeated, reordered, sent under fresh keys and again under their own keys, ends
// as the table holding each (device, id) once, with its time and amount. And an answer lost between
// the commit and the client (the connection killed after the commit) is retried: nothing twice,
// nothing lost.
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../../server/db/client.ts'
import { createTestApp, resetDatabase, sharedTestApp, type TestApp, testClock } from '../test-app.ts'
import { pairedDevice, postSales, type SaleIn, storedSales, storeWithPeople } from './helpers.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
const seed = Number(process.env.PROPERTY_SEED ?? 20261125)

/** Sales with distinct ids, at most a day old. */
const salesOf = (prefix: string) =>
  fc.uniqueArray(
    fc.record({
      id: fc.oneof(fc.nat({ max: 10_000 }), fc.stringMatching(/^[a-z0-9-]{1,12}$/)),
      offsetMs: fc.nat({ max: 24 * 3600 * 1000 }),
      amount: fc.integer({ min: -20_000, max: 200_000 }),
    }),
    { minLength: 1, maxLength: 40, selector: (sale) => `${prefix}${String(sale.id)}` },
  )

const asSale = ({
  id,
  offsetMs,
  amount,
}: {
  id: string | number
  offsetMs: number
  amount: number
}): SaleIn => ({
  id,
  createdAt: new Date(clock.now().getTime() - offsetMs).toISOString(),
  amount,
})

/** A batch: which sales (by index, repeats allowed), whether it is sent again (a retry), under which key. */
const batchPlan = fc.record({
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 25 }),
  retries: fc.nat({ max: 2 }),
  device: fc.nat({ max: 1 }),
})

describe('a stream split, repeated and reordered across batches and keys', () => {
  const current = sharedTestApp({ clock })
  it('stores each (device, id) exactly once, as first sent', async () => {
    const { app } = current
    const people = await storeWithPeople(app)
    const devices = [
      await pairedDevice(app, people.storeId, people.owner),
      await pairedDevice(app, people.storeId, people.owner),
    ]
    let round = 0
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(salesOf('a'), salesOf('b')),
        fc.array(batchPlan, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        async (streams, plans, shuffleSeed) => {
          round++
          await app.db.execute(sql`delete from usages`)
          await app.db.execute(sql`delete from device_batches`)
          const sales = streams.map((stream) => stream.map(asSale))
          // Every sale goes out at least once: a last batch of each device's leftovers.
          const sent: { device: number; body: SaleIn[] }[] = []
          const covered = [new Set<number>(), new Set<number>()]
          for (const plan of plans) {
            const stream = sales[plan.device] ?? []
            const body = plan.picks.map((pick) => stream[pick % stream.length] as SaleIn)
            for (const pick of plan.picks) covered[plan.device]?.add(pick % stream.length)
            for (let i = 0; i <= plan.retries; i++) sent.push({ device: plan.device, body })
          }
          for (const device of [0, 1]) {
            const left = (sales[device] ?? []).filter((_, i) => !covered[device]?.has(i))
            if (left.length > 0) sent.push({ device, body: left })
          }
          // Reordered: batches go out in a shuffled order; a retry keeps its batch's key.
          const keyed = sent.map((batch) => ({
            ...batch,
            key: `r${round}-${sent.findIndex((b) => b.body === batch.body)}`,
          }))
          let state = shuffleSeed || 1
          for (let i = keyed.length - 1; i > 0; i--) {
            state = (state * 48271) % 2147483647
            const j = state % (i + 1)
            ;[keyed[i], keyed[j]] = [keyed[j] as (typeof keyed)[number], keyed[i] as (typeof keyed)[number]]
          }
          let accepted = 0
          const answers = new Map<string, string>()
          for (const batch of keyed) {
            const device = devices[batch.device]
            if (!device) throw new Error('no device')
            const response = await postSales(app, device.key, batch.key, batch.body)
            expect(response.statusCode).toBe(200)
            const earlier = answers.get(batch.key)
            if (earlier === undefined) {
              answers.set(batch.key, response.body)
              accepted += response.json().accepted
            } else expect(response.body).toBe(earlier)
          }
          const expected = devices
            .flatMap((device, d) =>
              (sales[d] ?? []).map(
                (sale) => `${device.deviceId} ${sale.id} ${sale.createdAt} ${sale.amount}`,
              ),
            )
            .sort()
          const stored = (await storedSales(app, people.storeId)).sort()
          expect(stored).toEqual(expected)
          expect(accepted).toBe(expected.length)
        },
      ),
      { numRuns: 12, seed },
    )
  })
})

describe('an answer lost between the commit and the client', () => {
  let app: TestApp
  let base = ''
  let killAfterCommit = 0
  beforeAll(async () => {
    app = await createTestApp({ clock })
    // The connection dies after the batch committed, before its answer leaves (the answer is ready:
    // onSend runs after the handler's transaction).
    app.addHook('onSend', async (request, _reply, payload) => {
      if (request.url === '/api/v0/device/sales' && killAfterCommit > 0) {
        killAfterCommit--
        request.raw.socket.destroy()
      }
      return payload
    })
    base = await app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(() => app.close())

  it('is asked again with the same key and given the first answer; nothing is stored twice or lost', async () => {
    await resetDatabase(app)
    const people = await storeWithPeople(app)
    const { key } = await pairedDevice(app, people.storeId, people.owner)
    const post = (batchKey: string, sales: SaleIn[]) =>
      fetch(`${base}/api/v0/device/sales`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'idempotency-key': batchKey,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ sales }),
      })
    const sales = Array.from({ length: 30 }, (_, i) =>
      asSale({ id: `s${i}`, offsetMs: i * 60_000, amount: 1000 + i }),
    )
    // Each batch is killed after its commit up to twice, and retried until it is answered.
    const answers: unknown[] = []
    for (let from = 0; from < sales.length; from += 10) {
      killAfterCommit = 2
      let lost = 0
      for (;;) {
        try {
          const response = await post(`batch-${from}`, sales.slice(from, from + 10))
          expect(response.status).toBe(200)
          answers.push(await response.json())
          break
        } catch {
          lost++
        }
      }
      expect(lost).toBe(2)
    }
    expect(answers.map((answer) => (answer as { accepted: number }).accepted)).toEqual([10, 10, 10])
    // A client that lost its key too sends the same sales under a new one: duplicates, nothing stored.
    killAfterCommit = 0
    const again = await post('new-key', sales)
    expect(await again.json()).toMatchObject({ accepted: 0, duplicates: 30, rejected: [] })
    const stored = await storedSales(app, people.storeId)
    expect(stored).toHaveLength(30)
    expect(new Set(stored).size).toBe(30)
    const [batches] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from device_batches`,
    )
    expect(batches?.n).toBe(4)
  })
})
