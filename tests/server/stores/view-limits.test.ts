// The server's view (server/stores/view.ts) at the contract's limits: a sale is at most 10,000,000 won
// either way (domain/sales.ts, the CSV import), and nothing bounds the sales of a store-hour
// (devices, batches of 500 and imports add up, and a device may send an old hour's sales later). Its
// compact per-hour cells must give the same figures as adding the sales up plainly, beyond 2^31 won and
// 2^16 sales an hour: a property test of the in-memory path (`apply`) against a slow reference, and the
// bulk load at those sizes.
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { hourMs, yearStart } from '../../../domain/calendar.ts'
import { addStore } from '../../../server/db/accounts.ts'
import { loadStoreView } from '../../../server/stores/view.ts'
import { sharedTestApp, testClock } from '../test-app.ts'

const clock = testClock('2026-03-16T05:00:00.000Z')
const current = sharedTestApp({ clock })
const maxAmount = 10_000_000
const loadAt = clock.now().getTime()

it('adds sales into its cells as a plain sum does, beyond 2^31 won and 2^16 sales an hour', {
  timeout: 180_000,
}, async () => {
  const storeId = await addStore(current.app.db, { name: '매장' })
  const hourOf = (at: number) => Math.floor((at - yearStart(2026)) / hourMs)
  const hours = 6
  const firstHour = Math.floor(loadAt / hourMs) * hourMs - 3 * hourMs
  // Runs of equal sales: [hour, amount, how many].
  const runs = fc.array(
    fc.tuple(
      fc.integer({ min: 0, max: hours - 1 }),
      fc.oneof(fc.constantFrom(maxAmount, -maxAmount, 1), fc.integer({ min: -maxAmount, max: maxAmount })),
      fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constant(70_000)),
    ),
    { minLength: 1, maxLength: 6 },
  )
  await fc.assert(
    fc.asyncProperty(runs, async (sales) => {
      const fresh = await loadStoreView(current.app.db, loadAt)
      const sums = new Map<number, number>()
      const counts = new Map<number, number>()
      for (const [hour, amount, times] of sales) {
        for (let i = 0; i < times; i++) fresh.apply(storeId, firstHour + hour * hourMs + i, amount)
        sums.set(hour, (sums.get(hour) ?? 0) + amount * times)
        if (amount > 0) counts.set(hour, (counts.get(hour) ?? 0) + times)
      }
      const [buckets] = fresh.bucketsOf(storeId, loadAt)
      for (let hour = 0; hour < hours; hour++) {
        const index = hourOf(firstHour + hour * hourMs)
        expect(buckets.hourSums[index]).toBe(sums.get(hour) ?? 0)
        expect(buckets.hourCounts[index]).toBe(counts.get(hour) ?? 0)
      }
    }),
    { numRuns: 20 },
  )
})

it('loads an hour of 250 sales of 10,000,000 won and an hour of 70,000 sales as they are', async () => {
  const storeId = await addStore(current.app.db, { name: '매장' })
  const big = '2026-03-16T02:00:00Z'
  const many = '2026-03-16T03:00:00Z'
  await current.app.db.execute(
    sql`insert into usages (store_id, created_at, amount)
        select ${storeId}, ${big}::timestamptz + i * interval '1 second', ${maxAmount} from generate_series(0, 249) i`,
  )
  await current.app.db.execute(
    sql`insert into usages (store_id, created_at, amount)
        select ${storeId}, ${many}::timestamptz + (i % 3600) * interval '1 second', 1000 from generate_series(0, 69999) i`,
  )
  const view = await loadStoreView(current.app.db, loadAt)
  const [buckets] = view.bucketsOf(storeId, loadAt)
  const index = (at: string) => Math.floor((Date.parse(at) - yearStart(2026)) / hourMs)
  expect([buckets.hourSums[index(big)], buckets.hourCounts[index(big)]]).toEqual([2_500_000_000, 250])
  expect([buckets.hourSums[index(many)], buckets.hourCounts[index(many)]]).toEqual([70_000_000, 70_000])
  // A refund of the whole big hour, applied: back to nothing.
  view.apply(storeId, Date.parse(big), -2_500_000_000)
  expect(view.bucketsOf(storeId, loadAt)[0].hourSums[index(big)]).toBe(0)
})
