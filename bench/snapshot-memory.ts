// Snapshots an embedded database holding N imported rows (default 200,000) and restores the snapshot,
// each step in its own process, and prints one JSON line: the data folder's size and its write-ahead
// log's, the snapshot's size and time, and for the snapshot and for the restore the process's resident
// memory before and its peak (VmHWM), plus the rows and a checksum of them before and after:
//   node --import tsx bench/snapshot-memory.ts [rows]
// The database is made and filled by other processes first (bench/import-memory.ts's CSV, imported as
// `npm run admin -- import` does), then opened as `npm run admin` opens it, and snapshotted as the
// command does after an import. `tests/server/snapshot-memory.test.ts` runs it with 200,000 rows.

import { spawnSync } from 'node:child_process'
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { addStore } from '../server/db/accounts.ts'
import { type Db, openDatabase, openForCommand, queryRows } from '../server/db/client.ts'
import { importUsageCsv } from '../server/db/import.ts'
import { restoreSnapshot } from '../server/db/snapshot-restore.ts'
import { writeSnapshot } from '../server/db/snapshots.ts'

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024)
const peakRssMb = () =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024
const rssMb = () => mb(process.memoryUsage().rss)

const folderBytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const full = path.join(dir, entry.name)
    return sum + (entry.isDirectory() ? folderBytes(full) : statSync(full).size)
  }, 0)

/** The rows and a checksum over every column of every row; both are computed in constant memory. */
async function usagesDigest(db: Db) {
  const [row] = await queryRows<{ rows: number; checksum: string }>(
    db,
    sql`select count(*)::int as rows,
          coalesce(sum(hashtext(concat_ws(',', id, store_id, created_at, amount, source_id))::bigint), 0)::text as checksum
        from usages`,
  )
  return row ?? { rows: 0, checksum: '' }
}

const self = fileURLToPath(import.meta.url)
const run = (args: string[]) => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', ...args], { encoding: 'utf8' })
  if (child.status !== 0) throw new Error(`${args.join(' ')} failed: ${child.stderr}${child.stdout}`)
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}')
}

const [, , mode = '', dir = ''] = process.argv
const pgliteDir = path.join(dir, 'pglite')
const snapshotDir = path.join(dir, 'snapshots')

if (mode === '--import') {
  const database = await openForCommand({ pgliteDir })
  try {
    const storeId = await addStore(database.db, { name: '대량점' })
    const report = await importUsageCsv(database.db, storeId, createReadStream(path.join(dir, 'sales.csv')))
    console.log(JSON.stringify({ imported: report.imported }))
  } finally {
    await database.close()
  }
} else if (mode === '--snapshot') {
  const database = await openForCommand({ pgliteDir })
  try {
    const digest = await usagesDigest(database.db)
    const rssBeforeMb = rssMb()
    const peakBeforeMb = Math.round(peakRssMb())
    const result = await writeSnapshot(database.pglite as NonNullable<typeof database.pglite>, {
      dir: snapshotDir,
      kept: 1,
    })
    console.log(
      JSON.stringify({
        ...digest,
        file: result.file,
        snapshotMb: Number((result.bytes / 1e6).toFixed(1)),
        blockedMs: Math.round(result.blockedMs),
        totalMs: Math.round(result.totalMs),
        rssBeforeMb,
        peakBeforeMb,
        peakMb: Math.round(peakRssMb()),
      }),
    )
  } finally {
    await database.close()
  }
} else if (mode === '--restore') {
  const [, , , , file = ''] = process.argv
  const restoredDir = path.join(dir, 'restored')
  const rssBeforeMb = rssMb()
  const started = performance.now()
  await restoreSnapshot(file, restoredDir)
  const restoreMs = performance.now() - started
  const peakMb = Math.round(peakRssMb())
  const database = await openDatabase({ pgliteDir: restoredDir })
  try {
    console.log(
      JSON.stringify({
        ...(await usagesDigest(database.db)),
        restoreMs: Math.round(restoreMs),
        rssBeforeMb,
        peakMb,
      }),
    )
  } finally {
    await database.close()
  }
} else {
  const rows = Number(process.argv[2] ?? 200_000)
  const work = mkdtempSync(path.join(tmpdir(), 'laundry-snapshot-memory-'))
  try {
    const importBench = fileURLToPath(new URL('./import-memory.ts', import.meta.url))
    const created = spawnSync(process.execPath, [
      '--import',
      'tsx',
      importBench,
      '--create',
      work,
      String(rows),
      'pglite',
    ])
    if (created.status !== 0) throw new Error(`creating the file and database failed: ${created.stderr}`)
    const started = performance.now()
    const { imported } = run([self, '--import', work])
    const importSeconds = (performance.now() - started) / 1000
    const folder = path.join(work, 'pglite')
    const folderMb = mb(folderBytes(folder))
    const walMb = mb(folderBytes(path.join(folder, 'pg_wal')))
    const snapshot = run([self, '--snapshot', work])
    const restore = run([self, '--restore', work, snapshot.file])
    console.log(
      JSON.stringify({
        rows,
        imported,
        importSeconds: Number(importSeconds.toFixed(1)),
        folderMb,
        walMb,
        snapshot: { ...snapshot, file: undefined },
        restore,
        same: snapshot.rows === restore.rows && snapshot.checksum === restore.checksum,
      }),
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
