// What a member of one store can read of another's activity through numbers: nothing. A store-year's
// revision counts that store-year's own write statements (migration 0009), and device and alert ids are
// random, so watching one's own revisions and ids while another store writes shows no change.
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { addUser } from '../../../server/db/accounts.ts'
import { queryRows } from '../../../server/db/client.ts'
import { alerts, devices, usages } from '../../../server/db/schema.ts'
import { addDevice, storeWithPeople } from '../devices/helpers.ts'
import { bearer, sharedTestApp, testClock } from '../test-app.ts'

const clock = testClock('2026-03-15T03:00:00.000Z')
let people: Awaited<ReturnType<typeof storeWithPeople>>
const current = sharedTestApp({
  clock,
  livePollMs: 60_000,
  setup: async (app) => {
    people = await storeWithPeople(app)
  },
})

/** What the owner of store A sees of a year: the answer's `Usage-Revision` and the changes call's `rev`. */
async function seen(year: number) {
  const usage = await current.app.inject({
    method: 'GET',
    url: `/api/v0/store/${people.storeId}/usage?year=${year}`,
    headers: bearer(people.owner),
  })
  expect(usage.statusCode).toBe(200)
  const changes = await current.app.inject({
    method: 'GET',
    url: `/api/v0/store/${people.storeId}/usage/changes?year=${year}&after=0`,
    headers: bearer(people.owner),
  })
  expect(changes.statusCode).toBe(200)
  const rev = changes.json().rev as number
  expect(Number(usage.headers['usage-revision'])).toBe(rev)
  return rev
}

const sale = (storeId: number, createdAt: string, amount = 1000) =>
  current.app.db.insert(usages).values({ storeId, createdAt: new Date(createdAt), amount })

describe("a member watching its own store's numbers while another store writes", () => {
  it('sees its revisions move by one per write of its own, and by nothing of the other store', async () => {
    const other = people.otherStoreId
    await sale(people.storeId, '2026-03-01T00:00:00Z')
    const first = await seen(2026)
    expect(first).toBeGreaterThan(0)

    // Store B writes: inserts, an update, a delete, a year of its own, one statement of many records.
    for (let day = 1; day <= 5; day++) await sale(other, `2026-03-0${day}T01:00:00Z`)
    await current.app.db.execute(sql`update usages set amount = 2000 where store_id = ${other}`)
    await current.app.db.execute(
      sql`delete from usages where store_id = ${other} and created_at = '2026-03-01T01:00:00Z'`,
    )
    await sale(other, '2025-12-31T01:00:00Z')
    await current.app.db.execute(
      sql`insert into usages (store_id, created_at, amount)
          select ${other}, '2026-04-01T00:00:00Z'::timestamptz + n * interval '1 minute', 500
          from generate_series(1, 20) n`,
    )
    expect(await seen(2026)).toBe(first)

    // A's next write moves A's revision by exactly one: B's eight statements left no trace.
    await sale(people.storeId, '2026-03-02T00:00:00Z')
    expect(await seen(2026)).toBe(first + 1)
    await current.app.db.execute(sql`update usages set amount = 3000 where store_id = ${people.storeId}`)
    expect(await seen(2026)).toBe(first + 2)

    // A year A begins starts where B's years began, whatever B wrote meanwhile.
    const [otherYear] = await queryRows<{ version: string | number }>(
      current.app.db,
      sql`select version from usage_years where store_id = ${other} and year = 2025`,
    )
    expect(await seen(2025)).toBe(0)
    await sale(people.storeId, '2025-06-01T00:00:00Z')
    expect(await seen(2025)).toBe(Number(otherYear?.version))
  })

  it('sees a year deleted by hand and written again start above every revision it had; a store deleted moves nothing', async () => {
    const epoch = async () =>
      Number(
        (await queryRows<{ epoch: string | number }>(current.app.db, sql`select epoch from usage_epoch`))[0]
          ?.epoch,
      )
    await sale(people.storeId, '2026-03-01T00:00:00Z')
    await sale(people.storeId, '2026-03-02T00:00:00Z')
    const before = await seen(2026)
    await current.app.db.execute(
      sql`delete from usage_years where store_id = ${people.storeId} and year = 2026`,
    )
    await sale(people.storeId, '2026-03-03T00:00:00Z')
    const again = await seen(2026)
    expect(again).toBeGreaterThan(before)
    expect(again % 1e8).toBe(1)

    // Another store, its sales and years deleted: the epoch stays, and so do A's revisions.
    await sale(people.otherStoreId, '2026-03-01T00:00:00Z')
    const kept = await epoch()
    await current.app.db.execute(sql`delete from stores where id = ${people.otherStoreId}`)
    expect(await epoch()).toBe(kept)
    expect(await seen(2026)).toBe(again)
  })

  it('gets device ids that do not count the devices other stores add, listed in the order they were added', async () => {
    const ids: number[] = []
    for (let round = 0; round < 4; round++) {
      clock.advance(60_000)
      ids.push((await addDevice(current.app, people.storeId, people.owner, `상자 ${round}`)).id)
      // Store B adds three devices between two of A's.
      const added = await current.app.db
        .insert(devices)
        .values([1, 2, 3].map((n) => ({ storeId: people.otherStoreId, name: `남의 상자 ${n}` })))
        .returning({ id: devices.id })
      for (const { id } of added) expect(id).toBeGreaterThanOrEqual(1)
    }
    for (const id of ids) {
      expect(Number.isInteger(id)).toBe(true)
      expect(id).toBeGreaterThanOrEqual(1)
      expect(id).toBeLessThanOrEqual(2147483647)
    }
    // Counted ids would be 4 apart (B's three, then A's next); random ones are far from any count.
    const gaps = ids.slice(1).map((id, index) => Math.abs(id - (ids[index] as number)))
    expect(gaps.every((gap) => gap > 1000)).toBe(true)
    const listed = await current.app.inject({
      method: 'GET',
      url: `/api/v0/store/${people.storeId}/devices`,
      headers: bearer(people.owner),
    })
    expect(listed.json().devices.map((device: { id: number }) => device.id)).toEqual(ids)
    // The device's own calls take the id it was given.
    const renamed = await current.app.inject({
      method: 'PATCH',
      url: `/api/v0/store/${people.storeId}/devices/${ids[2]}`,
      headers: bearer(people.owner),
      payload: { name: '새 이름' },
    })
    expect(renamed.statusCode).toBe(204)
  })

  it("gets alert ids that do not count other users' alerts", async () => {
    const other = await addUser(current.app.db, { phone: '01099998888', name: '남의 사장' })
    const [me] = await queryRows<{ user_id: number }>(
      current.app.db,
      sql`select user_id from memberships where store_id = ${people.storeId} and role = 'owner'`,
    )
    const alertOf = (userId: number, episode: string) => ({
      userId,
      storeId: null,
      kind: 'morningSummary' as const,
      episode,
      title: '어제 매출',
      body: '…',
      tag: `summary-${episode}`,
      state: 'held' as const,
    })
    const ids: number[] = []
    for (let day = 1; day <= 4; day++) {
      const [mine] = await current.app.db
        .insert(alerts)
        .values(alertOf(Number(me?.user_id), `2026-03-0${day}`))
        .returning({ id: alerts.id })
      ids.push(Number(mine?.id))
      await current.app.db.insert(alerts).values([1, 2, 3].map((n) => alertOf(other, `2026-03-0${day}-${n}`)))
    }
    for (const id of ids) {
      expect(Number.isSafeInteger(id)).toBe(true)
      expect(id).toBeGreaterThanOrEqual(1)
    }
    const gaps = ids.slice(1).map((id, index) => Math.abs(id - (ids[index] as number)))
    expect(gaps.every((gap) => gap > 1000)).toBe(true)
  })
})

describe('a store-year made anew', () => {
  it("starts at its epoch's base, version and log_from alike, however it is made (a sale, or a device batch pre-making two years)", async () => {
    const yearRow = (year: number) =>
      queryRows<{ version: string | number; log_from: string | number; base: string | number }>(
        current.app.db,
        sql`select version, log_from, (select epoch * 100000000 from usage_epoch where id = 1) as base
            from usage_years where store_id = ${people.storeId} and year = ${year}`,
      )
    await sale(people.storeId, '2031-06-01T00:00:00Z')
    const [made] = await yearRow(2031)
    // A server's view or a client that kept a revision of an earlier epoch (a restore, then the year
    // made again) is told to reset by log_from, not handed changes on top of what it kept.
    expect(Number(made?.log_from)).toBe(Number(made?.base))
    expect(Number(made?.version)).toBe(Number(made?.base) + 1)
    // What ingest.ts inserts for a batch spanning two years: the columns' defaults.
    await current.app.db.execute(
      sql`insert into usage_years (store_id, year) values (${people.storeId}, 2032) on conflict do nothing`,
    )
    const [premade] = await yearRow(2032)
    expect(Number(premade?.version)).toBe(Number(premade?.base))
    expect(Number(premade?.log_from)).toBe(Number(premade?.base))
    expect(Number(premade?.base)).toBeGreaterThan(0)
  })
})
