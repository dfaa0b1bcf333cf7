// Snapshots of the embedded database. PGlite runs without fsync (its Node file system has none), so
// after a power cut or an OS crash its files may hold anything the kernel had not yet written. A
// snapshot is a consistent copy that did reach the disk: a CHECKPOINT, then the data folder's files
// streamed as a tar (the format PGlite's own dump has, so `loadDataDir` reads one too) through gzip into
// a temporary file that is fsynced, renamed into place, and the folder fsynced. The newest
// SNAPSHOTS_KEPT are kept. Nothing holds more than a few buffers of the database in memory, whatever its
// size (docs/operations.md, "What the embedded database promises"). This module writes and lists the
// snapshot files; snapshot-schedule.ts takes them on the server's schedule, snapshot-restore.ts puts one
// back and says what to do when the database will not open.

import { existsSync, readdirSync } from 'node:fs'
import { mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import type { PGlite } from '@electric-sql/pglite'
import { create as createTar } from 'tar'
import {
  isSnapshotTemporary,
  snapshotName as nameFor,
  snapshotNamePattern as namePattern,
  snapshotTemporaryName,
} from './data-names.ts'
import { fsyncPath } from './fsync.ts'

export interface Snapshot {
  file: string
  taken: Date
}

/** The snapshots in `dir`, newest first (their names hold the UTC time they were taken). */
export function listSnapshots(dir: string): Snapshot[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  return names
    .map((name) => ({ name, match: namePattern.exec(name) }))
    .filter((entry) => entry.match !== null)
    .sort((a, b) => (a.name < b.name ? 1 : -1))
    .map(({ name, match }) => {
      const [, y, mo, d, h, mi, s, ms] = match as RegExpExecArray
      return { file: path.join(dir, name), taken: new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`) }
    })
}

export interface SnapshotResult {
  file: string
  bytes: number
  /** How long the database answered nothing: the CHECKPOINT and the copy of its files. */
  blockedMs: number
  /** Until the file was on disk. */
  totalMs: number
  removed: string[]
}

/** The folder an embedded database keeps its files in; snapshots copy it, so it must be one on disk. */
function dataFolder(pglite: PGlite): string {
  const dataDir = pglite.dataDir?.replace(/^file:\/\//, '')
  if (!dataDir || /^[a-z0-9-]+:\/\//.test(dataDir)) {
    throw new Error('snapshots are taken of an embedded database kept in a folder on disk')
  }
  return path.resolve(dataDir)
}

/**
 * Writes one snapshot of `pglite` into `dir` and removes all but the newest `kept`.
 *
 * The copy is consistent because nothing writes while it is made: it runs inside a PGlite transaction,
 * which holds every other query and transaction of this process back until it ends (PGlite answers one
 * at a time, and there is no other process: it holds the lock). First a CHECKPOINT puts everything
 * committed into the table files; then each file is read in pieces, packed as tar and gzipped on
 * libuv's thread pool, and written out. The event loop stays free (requests wait for the database, as
 * they did for PGlite's own dump, which built the whole folder in memory: about 5 GB for 3,000,000 rows).
 */
export async function writeSnapshot(
  pglite: PGlite,
  { dir, kept }: { dir: string; kept: number },
  now = new Date(),
): Promise<SnapshotResult> {
  const started = performance.now()
  const dataDir = dataFolder(pglite)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  // Leftovers of a snapshot cut short by a crash (only one process writes here: it holds the lock).
  for (const name of await readdir(dir)) {
    if (isSnapshotTemporary(name)) await unlink(path.join(dir, name))
  }

  let taken = now
  while (existsSync(path.join(dir, nameFor(taken)))) taken = new Date(taken.getTime() + 1)
  const file = path.join(dir, nameFor(taken))
  const temporary = path.join(dir, snapshotTemporaryName(path.basename(file)))
  const handle = await open(temporary, 'wx', 0o600)
  let blockedMs = 0
  try {
    await pglite.transaction(async (tx) => {
      // The transaction itself changes nothing (it never gets an id), so it leaves no trace in the copy.
      await tx.exec('CHECKPOINT')
      // Entries named as PGlite's dump names them (`base/1/1259`, …; the dump prefixes a slash).
      const names = (await readdir(dataDir)).sort()
      await pipeline(
        createTar(
          // One file at a time, read 1 MiB at a time: by default four files at once, 16 MiB at a time,
          // which added about 120 MB to the process instead of about 50.
          { cwd: dataDir, portable: true, jobs: 1, maxReadSize: 1024 * 1024 },
          names,
        ),
        createGzip({ level: 1 }),
        async (gzipped: AsyncIterable<Buffer>) => {
          for await (const chunk of gzipped) await handle.write(chunk)
        },
      )
      blockedMs = performance.now() - started
    })
    await handle.sync()
  } catch (error) {
    await handle.close()
    await rm(temporary, { force: true })
    throw error
  }
  const { size } = await handle.stat()
  await handle.close()
  await rename(temporary, file)
  await fsyncPath(dir)

  // The snapshot just written always stays, even when the clock was set back and older ones carry
  // later times in their names; of the others, the newest by name are kept.
  const removed = listSnapshots(dir)
    .filter((old) => old.file !== file)
    .slice(kept - 1)
    .map((old) => old.file)
  for (const old of removed) await unlink(old)
  if (removed.length > 0) await fsyncPath(dir)
  return { file, bytes: size, blockedMs, totalMs: performance.now() - started, removed }
}
