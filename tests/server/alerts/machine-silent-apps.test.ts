// The machine-silent rule's shares (server/alerts/machine-silent.ts) are each app's own: tests build many
// apps in one process, each on its own database, whose stores share ids. Shares kept for the process
// would judge a store by those another app read of its database under the same id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { episodeParts } from '../../../server/alerts/machine-silent.ts'
import { storeWithPeople } from '../devices/helpers.ts'
import { fakeTransport } from '../push/helpers.ts'
import { createTestApp, type TestApp, testClock } from '../test-app.ts'
import { alertRows, pushEnv, machineSales as sales, subscribe } from './helpers.ts'

describe('machine silent: each app its own shares', () => {
  // Monday 16 March 2026, 14:00 KST.
  const clock = testClock('2026-03-16T05:00:00.000Z')
  const fakes = [fakeTransport(), fakeTransport()]
  const apps: TestApp[] = []
  beforeAll(async () => {
    for (const fake of fakes)
      apps.push(await createTestApp({ clock, env: pushEnv, pushTransport: () => fake.transport }))
  })
  afterAll(async () => {
    for (const app of apps) await app.close()
  })

  it("a store of one app's database is never judged by the shares of another's under the same id", async () => {
    const [first, second] = apps as [TestApp, TestApp]
    const ids: number[] = []
    for (const app of apps) {
      const people = await storeWithPeople(app)
      await subscribe(app, people.owner, 'owner')
      ids.push(people.storeId)
    }
    expect(ids[0]).toBe(ids[1])
    const storeId = ids[0] as number
    // The first database's store: as many sales, the same machines, but W3 never sold (W1 took its
    // turns): by its shares the second's W3, dead since 02:00, would be far from silent.
    await sales(first.db, storeId, {
      from: '2026-02-09T00:00:00Z',
      until: '2026-03-16T04:59:00Z',
      turns: ['W1', 'W2', 'W1', 'D1', 'D2'],
    })
    await sales(second.db, storeId, {
      from: '2026-02-09T00:00:00Z',
      until: '2026-03-16T04:59:00Z',
      deadFrom: '2026-03-16T02:00:00Z',
    })

    // The first app reads its store's shares of the day, then the second its own (not the first's:
    // those would even pass its check of the history read, the same sales a day and the same machines).
    await first.alertRules.evaluate(clock.now())
    await second.alertRules.evaluate(clock.now())
    expect((await alertRows(first)).map((row) => row.kind)).not.toContain('machineSilent')
    expect(
      (await alertRows(second)).map((row) => [row.kind, episodeParts(row.episode).machine]),
    ).toContainEqual(['machineSilent', 'W3'])
  })
})
