import {
  createWriteStream,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { gunzipSync, gzipSync } from 'node:zlib'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { create as createTar } from 'tar'
import { describe, expect, it } from 'vitest'
import { addStore, addUser, grant, listAccounts } from '../../../server/db/accounts.ts'
import { type Database, openDatabase, queryRows } from '../../../server/db/client.ts'
import { DatabaseInUseError } from '../../../server/db/lock.ts'
import { usages } from '../../../server/db/schema.ts'
import { restoreSnapshot } from '../../../server/db/snapshot-restore.ts'
import { SnapshotSchedule } from '../../../server/db/snapshot-schedule.ts'
import { listSnapshots, writeSnapshot } from '../../../server/db/snapshots.ts'
import { readChanges } from '../../../server/usage/changes.ts'
import { embeddedDatabases, pglite } from './new-database.ts'

// Snapshots are the embedded database's only copy that surely reached the disk.
const { newDatabase } = embeddedDatabases('laundry-snapshots-')

const phones = async (database: Database) => (await listAccounts(database.db)).map((user) => user.phone)

const silentLog = { info() {}, error() {} }

describe('snapshots of the embedded database', () => {
  it('are complete, loadable, owner-only files, and the newest N are kept', async () => {
    const { snapshotDir, database } = await newDatabase()
    try {
      await addUser(database.db, { phone: '01012345678', name: '김사장' })
      const first = await writeSnapshot(
        pglite(database),
        { dir: snapshotDir, kept: 2 },
        new Date('2026-11-01T00:00:00Z'),
      )
      console.log(
        `snapshot of an almost empty database: ${(first.bytes / 1e6).toFixed(1)} MB gzipped, ` +
          `database held ${first.blockedMs.toFixed(0)} ms, on disk after ${first.totalMs.toFixed(0)} ms`,
      )
      expect(statSync(first.file).mode & 0o777).toBe(0o600)
      expect(statSync(snapshotDir).mode & 0o777).toBe(0o700)

      // Loadable, with the data it was taken with.
      const loaded = await PGlite.create({ loadDataDir: new Blob([gunzipSync(readFileSync(first.file))]) })
      try {
        expect((await loaded.query<{ phone: string }>('select phone from users')).rows).toEqual([
          { phone: '01012345678' },
        ])
      } finally {
        await loaded.close()
      }

      for (const day of ['02', '03', '04']) {
        await writeSnapshot(
          pglite(database),
          { dir: snapshotDir, kept: 2 },
          new Date(`2026-11-${day}T00:00:00Z`),
        )
      }
      // Two kept, the newest first; no temporary file left behind.
      expect(listSnapshots(snapshotDir).map((s) => s.taken.toISOString())).toEqual([
        '2026-11-04T00:00:00.000Z',
        '2026-11-03T00:00:00.000Z',
      ])
      expect(readdirSync(snapshotDir).sort()).toEqual([
        'pglite-20261103T000000000Z.tar.gz',
        'pglite-20261104T000000000Z.tar.gz',
      ])
    } finally {
      await database.close()
    }
  }, 60_000)

  it('on the schedule, skips a snapshot when nothing changed since the last one', async () => {
    const { snapshotDir, database } = await newDatabase()
    try {
      const schedule = new SnapshotSchedule(
        pglite(database),
        { dir: snapshotDir, kept: 5, minutes: 15 },
        silentLog,
      )
      expect(await schedule.takeIfChanged('test')).not.toBeNull()
      // Reads do not count as changes.
      await phones(database)
      expect(await schedule.takeIfChanged('test')).toBeNull()
      await addStore(database.db, { name: '역삼점' })
      expect(await schedule.takeIfChanged('test')).not.toBeNull()
      expect(await schedule.takeIfChanged('test')).toBeNull()
      expect(listSnapshots(snapshotDir)).toHaveLength(2)
    } finally {
      await database.close()
    }
  }, 60_000)

  it('restore puts a snapshot back into a stopped data directory, and refuses while the database is open', async () => {
    const { pgliteDir, snapshotDir, database } = await newDatabase()
    let open: Database | null = database
    try {
      await addUser(database.db, { phone: '01011112222', name: '하나' })
      const { file } = await writeSnapshot(pglite(database), { dir: snapshotDir, kept: 3 })
      await addUser(database.db, { phone: '01033334444', name: '둘' })

      // The server (here: this process) holds the database: nothing is touched.
      await expect(restoreSnapshot(file, pgliteDir)).rejects.toThrow(DatabaseInUseError)
      expect(await phones(database)).toEqual(['01011112222', '01033334444'])

      await database.close()
      open = null
      const { keptAside } = await restoreSnapshot(file, pgliteDir)
      open = await openDatabase({ pgliteDir })
      expect(await phones(open)).toEqual(['01011112222'])
      await open.close()
      open = null

      // The replaced database is kept aside, whole.
      expect(keptAside).toMatch(/pglite\.before-restore-/)
      open = await openDatabase({ pgliteDir: keptAside as string })
      expect(await phones(open)).toEqual(['01011112222', '01033334444'])
    } finally {
      await open?.close()
    }
  }, 90_000)

  it('keeps the snapshot just written when the clock was set back and older ones carry later names', async () => {
    const { snapshotDir, database } = await newDatabase()
    try {
      for (const day of ['24', '25']) {
        await writeSnapshot(
          pglite(database),
          { dir: snapshotDir, kept: 2 },
          new Date(`2026-11-${day}T00:00:00Z`),
        )
      }
      // The clock is corrected back by days: the new snapshot sorts oldest by name.
      await addUser(database.db, { phone: '01055556666', name: '셋' })
      const { file, removed } = await writeSnapshot(
        pglite(database),
        { dir: snapshotDir, kept: 2 },
        new Date('2026-11-20T00:00:00Z'),
      )
      expect(removed).not.toContain(file)
      expect(listSnapshots(snapshotDir).map((s) => s.file)).toContain(file)
      expect(listSnapshots(snapshotDir)).toHaveLength(2)
    } finally {
      await database.close()
    }
  }, 60_000)

  it('a restore ends every sign-in: logouts made after the snapshot must not come back to life', async () => {
    const { pgliteDir, snapshotDir, database } = await newDatabase()
    let open: Database | null = database
    try {
      const userId = await addUser(database.db, { phone: '01011112222', name: '하나' })
      await database.db.execute(
        sql`insert into sign_ins (id, user_id, expires_at) values ('live-at-snapshot', ${userId}, now() + interval '14 days')`,
      )
      const { file } = await writeSnapshot(pglite(database), { dir: snapshotDir, kept: 3 })
      await database.close()
      open = null
      await restoreSnapshot(file, pgliteDir)
      open = await openDatabase({ pgliteDir })
      const live = await queryRows<{ id: string }>(
        open.db,
        sql`select id from sign_ins where revoked_at is null`,
      )
      expect(live).toEqual([])
    } finally {
      await open?.close()
    }
  }, 90_000)

  it('a restore of an older snapshot is seen by a client that kept a later revision, even once the year has moved past it', async () => {
    const { pgliteDir, snapshotDir, database } = await newDatabase()
    let open: Database | null = database
    const sale = (db: Database['db'], storeId: number, minute: number) =>
      db
        .insert(usages)
        .values({ storeId, createdAt: new Date(Date.UTC(2026, 2, 1, 0, minute)), amount: 1000 })
    try {
      const userId = await addUser(database.db, { phone: '01011112222', name: '하나' })
      const storeId = await addStore(database.db, { name: '역삼점' })
      await grant(database.db, '01011112222', storeId, 'owner')
      await sale(database.db, storeId, 0)
      const { file } = await writeSnapshot(pglite(database), { dir: snapshotDir, kept: 3 })
      // After the snapshot: three more sales, and a client keeps the revision they brought.
      for (const minute of [1, 2, 3]) await sale(database.db, storeId, minute)
      const kept = await readChanges(database.db, userId, storeId, 2026, 0)
      if (!kept.member) throw new Error('not a member')
      await database.close()
      open = null

      await restoreSnapshot(file, pgliteDir)
      open = await openDatabase({ pgliteDir })
      // Right after the restore, and after more sales than were lost (the year's revision moves past
      // the kept one): the client is told to fetch the year again, never handed the later changes only.
      expect(await readChanges(open.db, userId, storeId, 2026, kept.revision)).toMatchObject({ reset: true })
      for (const minute of [11, 12, 13, 14, 15]) await sale(open.db, storeId, minute)
      const later = await readChanges(open.db, userId, storeId, 2026, kept.revision)
      expect(later).toMatchObject({ member: true, reset: true })
      if (!later.member) throw new Error('not a member')
      expect(later.revision).toBeGreaterThan(kept.revision)
      // From the revision it is then given, it follows the year change by change again.
      await sale(open.db, storeId, 20)
      expect(await readChanges(open.db, userId, storeId, 2026, later.revision)).toMatchObject({
        reset: false,
        revision: later.revision + 1,
        count: 7,
      })
    } finally {
      await open?.close()
    }
  }, 90_000)

  it('after a restore interrupted between its two renames, the server does not start on a new empty database', async () => {
    const { pgliteDir, database } = await newDatabase()
    await addUser(database.db, { phone: '01011112222', name: '하나' })
    await database.close()
    // What a crash leaves: the old database renamed aside, the restored one not yet in place.
    renameSync(pgliteDir, `${pgliteDir}.before-restore-20261123T000000000Z`)
    await expect(openDatabase({ pgliteDir })).rejects.toThrow(/restore was interrupted/)
    expect(readdirSync(path.dirname(pgliteDir))).not.toContain('pglite')
  }, 60_000)

  it('writes sent while a snapshot is copied wait for it: the copy holds whole transactions and restores', async () => {
    const { dir, snapshotDir, database } = await newDatabase()
    let open: Database | null = null
    try {
      const storeId = await addStore(database.db, { name: '역삼점' })
      const insertBatch = () =>
        database.db.execute(
          sql`insert into usages (store_id, created_at, amount) select ${storeId}, now(), 1000 from generate_series(1, 1000)`,
        )
      await insertBatch()
      // Batches of 1,000 rows keep coming, one after another, for as long as the snapshot runs. Each
      // waits a turn of the event loop, as requests arriving over the network do (PGlite answers
      // within microtasks: a loop of bare queries would never let the snapshot's file operations run).
      let snapshotting = true
      let batches = 1
      const writer = (async () => {
        while (snapshotting) {
          await new Promise((resolve) => setImmediate(resolve))
          await insertBatch()
          batches++
        }
      })()
      const { file } = await writeSnapshot(pglite(database), { dir: snapshotDir, kept: 3 }).finally(() => {
        snapshotting = false
      })
      await writer
      const restoredDir = path.join(dir, 'restored')
      await restoreSnapshot(file, restoredDir)
      open = await openDatabase({ pgliteDir: restoredDir })
      const [row] = await queryRows<{ n: number }>(open.db, sql`select count(*)::int as n from usages`)
      const rows = row?.n ?? -1
      expect(rows % 1000).toBe(0)
      expect(rows).toBeGreaterThanOrEqual(1000)
      expect(rows).toBeLessThanOrEqual(batches * 1000)
    } finally {
      await open?.close()
      await database.close()
    }
  }, 90_000)

  it("restores a snapshot written by an earlier version (PGlite's own dump, gzipped), and reads a new one streamed", async () => {
    const { dir, pgliteDir, snapshotDir, database } = await newDatabase()
    let open: Database | null = database
    try {
      await addUser(database.db, { phone: '01011112222', name: '하나' })
      await pglite(database).exec('CHECKPOINT')
      const old = path.join(dir, 'pglite-20261101T000000000Z.tar.gz')
      writeFileSync(
        old,
        gzipSync(new Uint8Array(await (await pglite(database).dumpDataDir('none')).arrayBuffer())),
      )
      await addUser(database.db, { phone: '01033334444', name: '둘' })
      const { file } = await writeSnapshot(pglite(database), { dir: snapshotDir, kept: 3 })
      await database.close()
      open = null

      await restoreSnapshot(old, pgliteDir)
      open = await openDatabase({ pgliteDir })
      expect(await phones(open)).toEqual(['01011112222'])
      await open.close()
      open = null

      await restoreSnapshot(file, pgliteDir, new Date('2026-11-02T00:00:00Z'))
      open = await openDatabase({ pgliteDir })
      expect(await phones(open)).toEqual(['01011112222', '01033334444'])
    } finally {
      await open?.close()
    }
  }, 90_000)

  it('a tar without a database folder, or a snapshot cut short, is refused and the database is left as it was', async () => {
    const { dir, pgliteDir, snapshotDir, database } = await newDatabase()
    await addUser(database.db, { phone: '01011112222', name: '하나' })
    const { file } = await writeSnapshot(pglite(database), { dir: snapshotDir, kept: 3 })
    await database.close()
    // A well-formed tar.gz of some other folder: PGlite would make a new, empty database from it.
    const other = path.join(dir, 'other')
    mkdirSync(other)
    writeFileSync(path.join(other, 'notes.txt'), 'hello')
    const foreign = path.join(dir, 'foreign.tar.gz')
    await pipeline(createTar({ cwd: other, gzip: true }, ['notes.txt']), createWriteStream(foreign))
    await expect(restoreSnapshot(foreign, pgliteDir)).rejects.toThrow(
      /is not a usable snapshot: .*PG_VERSION/,
    )
    // The first half of a real snapshot (gunzipped, so the cut is in the tar, not only in the gzip).
    const tar = gunzipSync(readFileSync(file))
    const truncated = path.join(dir, 'truncated.tar')
    writeFileSync(truncated, tar.subarray(0, Math.floor(tar.length / 2)))
    await expect(restoreSnapshot(truncated, pgliteDir)).rejects.toThrow(/is not a usable snapshot/)
    const gzipTruncated = path.join(dir, 'truncated.tar.gz')
    const gzipped = readFileSync(file)
    writeFileSync(gzipTruncated, gzipped.subarray(0, Math.floor(gzipped.length / 2)))
    await expect(restoreSnapshot(gzipTruncated, pgliteDir)).rejects.toThrow(/is not a usable snapshot/)
    expect(readdirSync(dir).filter((name) => name.includes('restoring'))).toEqual([])
    const again = await openDatabase({ pgliteDir })
    try {
      expect(await phones(again)).toEqual(['01011112222'])
    } finally {
      await again.close()
    }
  }, 90_000)

  it('a file that is not a snapshot is refused and the database is left as it was', async () => {
    const { dir, pgliteDir, database } = await newDatabase()
    await addUser(database.db, { phone: '01011112222', name: '하나' })
    await database.close()
    const bogus = path.join(dir, 'bogus.tar.gz')
    writeFileSync(bogus, 'not a snapshot')
    await expect(restoreSnapshot(bogus, pgliteDir)).rejects.toThrow(/is not a usable snapshot/)
    const again = await openDatabase({ pgliteDir })
    try {
      expect(await phones(again)).toEqual(['01011112222'])
    } finally {
      await again.close()
    }
  }, 60_000)
})
