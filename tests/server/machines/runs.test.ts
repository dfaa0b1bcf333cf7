// The machines' runs as the machine-silent rule reads them (server/machines/runs.ts): each machine's sales
// in the span and its runs (the sales of the other machines of its kind between two consecutive sales of
// its) counted at 1, 2, 4, …, against a slow reference counting sale by sale, on random histories of two
// stores (washers, dryers, a machine of another kind, a machine without a row, refunds, sales outside
// the span, sales at the same instant).
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { RUN_LEVELS } from '../../../domain/machine-silent.ts'
import { seededRandom } from '../../../scripts/seeded-random.ts'
import { addStore } from '../../../server/db/accounts.ts'
import { machineHistories } from '../../../server/machines/runs.ts'
import { sharedTestApp } from '../test-app.ts'

const current = sharedTestApp()
const kinds: Record<string, string | null> = {
  W1: 'washer',
  W2: 'washer',
  W3: 'washer',
  D1: 'dryer',
  D2: 'dryer',
  X: 'other',
  Y: null,
}
const from = Date.parse('2026-03-01T00:00:00.000Z')
const to = Date.parse('2026-03-08T00:00:00.000Z')

interface Row {
  store: number
  at: number
  id: number
  machine: string
  amount: number
}

/** The reference: each machine's sales in [from, to) in order, and the mates' sales between two of its, one by one. */
function reference(rows: Row[], store: number, machine: string) {
  const kindOf = (m: string) => kinds[m] ?? 'other'
  const sales = rows
    .filter(
      (r) =>
        r.store === store &&
        r.amount >= 0 &&
        r.at >= from &&
        r.at < to &&
        kindOf(r.machine) === kindOf(machine),
    )
    .sort((a, b) => a.at - b.at || a.id - b.id)
  const own = sales.flatMap((r, i) => (r.machine === machine ? [i] : []))
  const runs = own
    .slice(1)
    .map(
      (at, n) =>
        at -
        (own[n] as number) -
        1 -
        sales.slice((own[n] as number) + 1, at).filter((r) => r.machine === machine).length,
    )
  return {
    sales: own.length,
    runs: Array.from({ length: RUN_LEVELS }, (_, k) => runs.filter((run) => run >= 2 ** k).length),
  }
}

describe('machine runs', () => {
  it('agree with the slow reference on random histories', async () => {
    const db = current.app.db
    for (const seed of [1, 2, 3]) {
      await db.execute(sql`delete from usages`)
      await db.execute(sql`delete from machines`)
      const random = seededRandom(seed)
      const stores = [await addStore(db, { name: `가${seed}` }), await addStore(db, { name: `나${seed}` })]
      const names = Object.keys(kinds)
      const rows: Row[] = []
      for (let i = 0; i < 1500; i++) {
        const at = from - 86_400_000 + Math.floor(random() * 9 * 86_400_000)
        rows.push({
          store: stores[Math.floor(random() * 2)] as number,
          // Every tenth at the previous one's instant.
          at: i > 0 && random() < 0.1 ? (rows.at(-1) as Row).at : at,
          id: 0,
          machine: names[Math.floor(random() * (random() < 0.5 ? 2 : names.length))] as string,
          amount: random() < 0.05 ? -1000 : 3000,
        })
      }
      const ids = await db.execute(sql`insert into usages (store_id, created_at, amount, machine)
        select * from jsonb_to_recordset(${JSON.stringify(rows.map((r) => ({ s: r.store, t: new Date(r.at).toISOString(), a: r.amount, m: r.machine })))}::jsonb)
          as x(s int, t timestamptz, a int, m text) returning id, store_id, created_at, machine`)
      const inserted = (
        ids as unknown as {
          rows: { id: string | number; store_id: number; created_at: Date | string; machine: string }[]
        }
      ).rows
      rows.forEach((row, i) => {
        row.id = Number(inserted[i]?.id)
      })
      for (const store of stores)
        for (const machine of names.filter((m) => m !== 'Y'))
          await db.execute(sql`insert into machines (store_id, machine, reported_kind, first_seen_at)
            values (${store}, ${machine}, ${kinds[machine]}, now())`)
      const read = await machineHistories(db, stores, from, to)
      for (const store of stores)
        for (const machine of names) {
          const expected = reference(rows, store, machine)
          const got = read.find((h) => h.storeId === store && h.machine === machine)
          if (expected.sales === 0) expect(got).toBeUndefined()
          else expect({ sales: got?.sales, runs: got?.runs }).toEqual(expected)
        }
    }
  })
})
