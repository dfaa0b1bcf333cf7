// The upgrade to per-year revisions and random ids (migration 0009) on a database that holds data made
// under the global sequence: every year moves above every revision handed out before, so a kept one is
// a reset once; device ids given before stay; the sequence that counted every store is gone.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from 'drizzle-orm/pglite/migrator'
import { afterAll, expect, it } from 'vitest'
import { migrationsFolder } from '../../../server/db/migrate.ts'
import * as schema from '../../../server/db/schema.ts'
import { readChanges } from '../../../server/usage/changes.ts'

const root = mkdtempSync(path.join(tmpdir(), 'laundry-revision-upgrade-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The migrations up to and including `last` (a tag's number), as a folder of their own. */
function migrationsUpTo(last: number) {
  const folder = path.join(root, `migrations-${last}`)
  mkdirSync(path.join(folder, 'meta'), { recursive: true })
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8'))
  journal.entries = journal.entries.filter((entry: { idx: number }) => entry.idx <= last)
  writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify(journal))
  for (const name of readdirSync(migrationsFolder)) {
    if (name.endsWith('.sql') && Number(name.slice(0, 4)) <= last)
      copyFileSync(path.join(migrationsFolder, name), path.join(folder, name))
  }
  return folder
}

it('moves every year above the revisions of before (each a reset once), keeps device ids, drops the sequence', async () => {
  const client = await PGlite.create()
  try {
    const db = drizzle(client, { schema })
    await migrate(db, { migrationsFolder: migrationsUpTo(8) })
    await client.exec(`
      insert into users (phone, name) values ('01011112222', '하나');
      insert into stores (name) values ('역삼점'), ('선릉점');
      insert into memberships (user_id, store_id, role) values (1, 1, 'owner');
      insert into devices (store_id, name) values (1, '상자'), (2, '상자');`)
    for (let n = 0; n < 5; n++)
      for (const store of [1, 2])
        await client.query('insert into usages (store_id, created_at, amount) values ($1, $2, 1000)', [
          store,
          `2026-03-0${n + 1}T00:00:00Z`,
        ])
    // The revision a client kept then: the year's version, as that version's changes call answered it
    // (today's call reads columns of later migrations).
    const [kept] = (
      await client.query<{ version: number }>(
        'select version::float8 as version from usage_years where store_id = 1 and year = 2026',
      )
    ).rows
    const before = { revision: Number(kept?.version) }
    // Counted by the one sequence: ten statements, of two stores (the old trigger drew two numbers for
    // a year already there), so the revision is well above this store's five.
    expect(before.revision).toBeGreaterThan(10)

    await migrate(db, { migrationsFolder })
    const years = await client.query<{ version: number; log_from: number; epoch: number }>(
      'select u.version::float8 as version, u.log_from::float8 as log_from, e.epoch::float8 as epoch from usage_years u, usage_epoch e',
    )
    expect(years.rows).toHaveLength(2)
    for (const row of years.rows) {
      expect(row.version).toBe(row.epoch * 1e8 + 1)
      expect(row.log_from).toBe(row.version)
    }
    expect(years.rows[0]?.epoch).toBeGreaterThan(0)
    // A client that kept the revision of before fetches the year again, once; then follows it.
    const reset = await readChanges(db, 1, 1, 2026, before.revision)
    expect(reset).toMatchObject({ member: true, reset: true })
    if (!reset.member) throw new Error('not a member')
    await client.query(
      `insert into usages (store_id, created_at, amount) values (1, '2026-03-09T00:00:00Z', 500)`,
    )
    expect(await readChanges(db, 1, 1, 2026, reset.revision)).toEqual({
      member: true,
      revision: reset.revision + 1,
      reset: false,
      changes: '{"op":"put","createdAt":"2026-03-09T00:00:00.000Z","amount":500}',
      count: 6,
      sum: 5500,
    })
    // The ids given before stay; a new one is random.
    const ids = (await client.query<{ id: number }>('select id from devices order by created_at, id')).rows
    expect(ids.slice(0, 2).map((row) => row.id)).toEqual([1, 2])
    const added = await client.query<{ id: number }>(
      `insert into devices (store_id, name) values (1, '새 상자') returning id`,
    )
    expect(added.rows[0]?.id).toBeGreaterThan(1000)
    expect((await client.query(`select 1 from pg_class where relname = 'usage_versions'`)).rows).toHaveLength(
      0,
    )
  } finally {
    await client.close()
  }
}, 120_000)
