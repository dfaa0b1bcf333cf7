// The machine-silent rule's shares (server/alerts/machine-silent.ts): read for at most
// `shareReadsPerEvaluation` stores an evaluation (lowered to 1 here), a store's of yesterday serving
// until its of the new UTC day are read, never older ones. Each app's its own:
// machine-silent-apps.test.ts.
import { describe, expect, it } from 'vitest'
import { episodeParts, machineSilentRule } from '../../../server/alerts/machine-silent.ts'
import { eachStore } from '../../../server/alerts/store-state.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import type { Db } from '../../../server/db/client.ts'
import { storeViews } from '../../../server/stores/view.ts'
import { sharedTestApp } from '../test-app.ts'
import { machineSales as sales } from './helpers.ts'

const current = sharedTestApp()

/** Stores with a member, in id order. */
async function stores(db: Db, count: number) {
  await addUser(db, { phone: '01012345678', name: '김사장' })
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const id = await addStore(db, { name: `${i + 1}호점` })
    await grant(db, '01012345678', id, 'owner')
    ids.push(id)
  }
  return ids
}

/** The rule as the app runs it each minute, reading at most one store's shares an evaluation. */
function oneReadAnEvaluation(db: Db) {
  const rule = machineSilentRule(db, { shareReadsPerEvaluation: 1 })
  const views = storeViews(db)
  /** The silent machines at `instant`, as `storeId machine`. */
  return async (instant: string) => {
    const at = Date.parse(instant)
    await rule.load(at)
    await eachStore(db, views, at, (store) => rule.visit(store, at))
    const found = await rule.candidates(new Date(at))
    return found.map((c) => `${c.storeId} ${episodeParts(c.episode).machine}`).sort()
  }
}

describe('machine silent: the shares read a few stores an evaluation', () => {
  it("until a store's shares of the new day are read, its of yesterday judge it; the next evaluation reads them", async () => {
    const { db } = current.app
    // 1 and 3: five weeks of sales; 2: opened on the 15th (no day before it to read a share from).
    const [a, b, c] = (await stores(db, 3)) as [number, number, number]
    await sales(db, a, { from: '2026-02-09T00:00:00Z', until: '2026-03-15T11:59:00Z' })
    await sales(db, b, { from: '2026-03-15T00:00:00Z', until: '2026-03-15T11:59:00Z' })
    await sales(db, c, { from: '2026-02-09T00:00:00Z', until: '2026-03-15T11:59:00Z' })
    const silent = oneReadAnEvaluation(db)
    // The 15th: three evaluations read the three stores' shares (of the days before the 15th).
    for (const minute of ['12:00', '12:01', '12:02'])
      expect(await silent(`2026-03-15T${minute}:00Z`)).toEqual([])
    // The 16th: W3 sells nothing from 02:00 in every store while the others sell on.
    for (const id of [a, b, c])
      await sales(db, id, {
        from: '2026-03-16T00:00:00Z',
        until: '2026-03-16T04:59:00Z',
        deadFrom: '2026-03-16T02:00:00Z',
      })

    // The day's first evaluation reads store 1's shares only. Store 3 is judged by its of yesterday: W3
    // silent. Store 2 too: read before it had sold, they watch no machine, so its W3 is not called silent
    // (by its own, read now, it would be).
    expect(await silent('2026-03-16T05:00:00Z')).toEqual([`${a} W3`, `${c} W3`])
    // The next reads store 2's (the 15th's sales): its W3 is silent too.
    expect(await silent('2026-03-16T05:01:00Z')).toEqual([`${a} W3`, `${b} W3`, `${c} W3`])
    expect(await silent('2026-03-16T05:02:00Z')).toEqual([`${a} W3`, `${b} W3`, `${c} W3`])
  })

  it('shares two days old judge no store: it waits for its of the day', async () => {
    const { db } = current.app
    const [a, b] = (await stores(db, 2)) as [number, number]
    for (const id of [a, b])
      await sales(db, id, { from: '2026-02-09T00:00:00Z', until: '2026-03-14T11:59:00Z' })
    const silent = oneReadAnEvaluation(db)
    // The 14th: both stores' shares read. No evaluation on the 15th (every instance down).
    for (const minute of ['12:00', '12:01']) expect(await silent(`2026-03-14T${minute}:00Z`)).toEqual([])
    for (const id of [a, b]) {
      await sales(db, id, { from: '2026-03-15T00:00:00Z', until: '2026-03-15T11:59:00Z' })
      await sales(db, id, {
        from: '2026-03-16T00:00:00Z',
        until: '2026-03-16T04:59:00Z',
        deadFrom: '2026-03-16T02:00:00Z',
      })
    }

    // The 16th's first evaluation reads store 1's; store 2's of the 14th are too old: not judged.
    expect(await silent('2026-03-16T05:00:00Z')).toEqual([`${a} W3`])
    expect(await silent('2026-03-16T05:01:00Z')).toEqual([`${a} W3`, `${b} W3`])
  })
})
