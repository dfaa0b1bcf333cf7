import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { describe, expect, it, vi } from 'vitest'
import { addStore } from '../../../server/db/accounts.ts'
import { openDatabase, queryRows } from '../../../server/db/client.ts'
import { checkDatabase, DatabaseDamagedError } from '../../../server/db/embedded.ts'
import { restoreSnapshot } from '../../../server/db/snapshot-restore.ts'
import { writeSnapshot } from '../../../server/db/snapshots.ts'
import { embeddedDatabases, pglite } from './new-database.ts'

// The embedded database is checked as it starts, so that damaged files show then, not on a request, and
// the start-up names the snapshot that puts it right.
const { newDatabase } = embeddedDatabases('laundry-embedded-')

describe('the check at start-up', () => {
  it('reads every table of the database', async () => {
    const { database } = await newDatabase()
    try {
      const client = pglite(database)
      const tables = await client.query<{ name: string }>(
        "select tablename as name from pg_tables where schemaname = 'public' order by 1",
      )
      expect(tables.rows.map((row) => row.name)).toContain('known_device_epochs')
      const query = vi.spyOn(client, 'query')
      await checkDatabase(client)
      const read = query.mock.calls.map(([text]) => text)
      for (const { name } of tables.rows)
        expect(
          read.some((text) => new RegExp(`\\b${name}\\b`).test(text)),
          name,
        ).toBe(true)
    } finally {
      await database.close()
    }
  }, 60_000)
})

describe('a damaged embedded database', () => {
  /** A closed database with one snapshot, and a damaged copy of its folder. */
  async function damagedCopy(damage: (pgliteDir: string, usagesFile: string) => void) {
    const { dir, pgliteDir, snapshotDir, database } = await newDatabase()
    const storeId = await addStore(database.db, { name: '역삼점' })
    await database.db.execute(
      sql`insert into usages (store_id, created_at, amount) select ${storeId}, now(), 1000 from generate_series(1, 500)`,
    )
    const [{ file: usagesFile } = { file: '' }] = await queryRows<{ file: string }>(
      database.db,
      sql`select pg_relation_filepath('usages') as file`,
    )
    const { file } = await writeSnapshot(pglite(database), { dir: snapshotDir, kept: 3 })
    await database.close()
    damage(pgliteDir, path.join(pgliteDir, usagesFile))
    return { dir, pgliteDir, snapshotDir, file }
  }

  async function expectDamaged(pgliteDir: string, snapshotDir: string, file: string) {
    const error = await openDatabase({ pgliteDir, snapshotDir }).then(
      (opened) => opened.close().then(() => null),
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(DatabaseDamagedError)
    const message = (error as Error).message
    console.log(message)
    expect(message).toContain(`The newest snapshot is ${file}`)
    expect(message).toContain(`npm run admin -- restore ${file}`)
    // The lock was let go: the restore it recommends can run.
    await restoreSnapshot(file, pgliteDir)
    const restored = await openDatabase({ pgliteDir, snapshotDir })
    try {
      const [row] = await queryRows<{ n: number }>(restored.db, sql`select count(*)::int as n from usages`)
      expect(row?.n).toBe(500)
    } finally {
      await restored.close()
    }
  }

  it('with a garbled pg_control: the start-up names the newest snapshot and the command that restores it', async () => {
    const { pgliteDir, snapshotDir, file } = await damagedCopy((dir) => {
      const control = path.join(dir, 'global', 'pg_control')
      const bytes = readFileSync(control)
      bytes.fill(0x55, 0, 64)
      writeFileSync(control, bytes)
    })
    await expectDamaged(pgliteDir, snapshotDir, file)
  }, 90_000)

  it('with a garbled table file: the check at start-up finds it', async () => {
    const { pgliteDir, snapshotDir, file } = await damagedCopy((_dir, usagesFile) => {
      const bytes = readFileSync(usagesFile)
      bytes.fill(0x55, 100, 4000)
      writeFileSync(usagesFile, bytes)
    })
    await expectDamaged(pgliteDir, snapshotDir, file)
  }, 90_000)

  it('without a snapshot, says there is none', async () => {
    const { pgliteDir, snapshotDir, database } = await newDatabase()
    await database.close()
    renameSync(path.join(pgliteDir, 'global', 'pg_control'), path.join(pgliteDir, 'pg_control.moved'))
    await expect(openDatabase({ pgliteDir, snapshotDir })).rejects.toThrow(/There is no snapshot in/)
  }, 60_000)
})
