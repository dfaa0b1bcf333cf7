// Snapshots of the embedded database. PGlite runs without fsync (its Node file system has none), so
// after a power cut or an OS crash its files may hold anything the kernel had not yet written. A
// snapshot is a consistent copy that did reach the disk: a CHECKPOINT, then the data folder's files
// streamed as a tar (the format PGlite's own dump has, so `loadDataDir` reads one too) through gzip into
// a temporary file that is fsynced, renamed into place, and the folder fsynced. The newest
// SNAPSHOTS_KEPT are kept. `restoreSnapshot` puts one back into a stopped data directory, streaming it
// into a new folder. Neither holds more than a few buffers of the database in memory, whatever its size
// (docs/operations.md, "What the embedded database promises"). This module alone names the snapshot
// files and the folders a restore leaves beside the database, and says what to do with them when the
// database will not open (`restoreAdvice`, `refuseInterruptedRestore`).

import { once } from 'node:events'
import { createReadStream, existsSync, readdirSync } from 'node:fs'
import { mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import type { PGlite } from '@electric-sql/pglite'
import { create as createTar, extract as extractTar } from 'tar'
import { ownerOnly } from '../files.ts'
import {
  isSnapshotTemporary,
  keptAsidePrefix,
  snapshotName as nameFor,
  snapshotNamePattern as namePattern,
  restoringFolder,
  snapshotTemporaryName,
  stamp,
} from './data-names.ts'
import { commandSharedBuffers, DatabaseDamagedError, startEmbedded } from './embedded.ts'
import { inUseMarker, newGenerationSql } from './generation.ts'
import { lockDirectory } from './lock.ts'

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

async function fsyncPath(target: string) {
  const handle = await open(target, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Fsyncs every file and folder under `dir` (PGlite itself never does), 32 at a time. */
export async function fsyncTree(dir: string) {
  const paths: string[] = []
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) await walk(full)
      else if (entry.isFile()) paths.push(full)
    }
    paths.push(folder)
  }
  await walk(dir)
  for (let start = 0; start < paths.length; start += 32)
    await Promise.all(paths.slice(start, start + 32).map(fsyncPath))
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

/**
 * The server's schedule: a snapshot every `minutes`, skipped when nothing was written since the last one
 * (the write-ahead log's insert position has not moved: cheap to read, and every change moves it), and
 * a last one on shutdown. One snapshot at a time.
 */
export class SnapshotSchedule {
  #last: string | null = null
  #timer: NodeJS.Timeout | undefined
  #queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly pglite: PGlite,
    private readonly options: { dir: string; kept: number; minutes: number },
    private readonly log: {
      info(fields: object, message: string): void
      error(fields: object, message: string): void
    },
  ) {}

  async #position() {
    const result = await this.pglite.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')
    return result.rows[0]?.lsn ?? ''
  }

  /** Takes a snapshot unless nothing changed since the last one this schedule took; null when skipped. */
  takeIfChanged(reason: string): Promise<SnapshotResult | null> {
    const run = this.#queue.then(async () => {
      const before = await this.#position()
      if (before === this.#last) return null
      const result = await writeSnapshot(this.pglite, this.options)
      // Read after the CHECKPOINT (which moves the position itself); a write that slipped in between only
      // makes the next run take a snapshot it could have skipped.
      this.#last = await this.#position()
      this.log.info(
        {
          reason,
          file: result.file,
          bytes: result.bytes,
          blockedMs: Math.round(result.blockedMs),
          totalMs: Math.round(result.totalMs),
          removed: result.removed,
        },
        'database snapshot written',
      )
      return result
    })
    this.#queue = run.catch(() => {})
    return run
  }

  start() {
    this.#timer = setInterval(() => {
      this.takeIfChanged('schedule').catch((error: unknown) =>
        this.log.error({ err: error }, 'database snapshot failed'),
      )
    }, this.options.minutes * 60_000)
    this.#timer.unref()
  }

  /** Stops the schedule and takes a last snapshot if anything changed. */
  async stop() {
    clearInterval(this.#timer)
    await this.takeIfChanged('shutdown')
  }
}

/**
 * Unpacks a snapshot into the new folder `into`, streaming: gzipped or not, written by this module or by
 * PGlite's own dump (older snapshots; their entries start with a slash, which is dropped). Anything but a
 * complete tar of a database folder is refused: the notes tar gives about a damaged, truncated or foreign
 * archive are errors here, and the result must hold PG_VERSION (else PGlite would make a new, empty
 * database in it).
 */
async function unpackSnapshot(file: string, into: string) {
  await mkdir(into, { mode: 0o700 })
  const problems: string[] = []
  const unpack = extractTar({
    cwd: into,
    preserveOwner: false,
    onwarn: (code, message) => {
      // An absolute entry name made relative: PGlite's dump writes them so.
      if (code !== 'TAR_ENTRY_INFO') problems.push(`${code}: ${String(message)}`)
    },
  })
  try {
    await pipeline(createReadStream(file), unpack)
  } catch (error) {
    // After an error tar still finishes the files it had begun, then ends (not after a gzip error,
    // when the file in progress waits for data forever): wait for that, up to a second, so that the
    // folder can be removed whole.
    await Promise.race([
      once(unpack, 'end').catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
    ])
    throw error
  }
  if (problems.length > 0) throw new Error(problems.slice(0, 3).join('; '))
  if (!existsSync(path.join(into, 'PG_VERSION')))
    throw new Error('it holds no database folder (no PG_VERSION)')
}

/**
 * Puts a snapshot back as the embedded database in `pgliteDir`. Refuses while another process (the
 * server) holds the database. The snapshot is unpacked into a folder beside it, opened there, migrated
 * and checked, synced to disk, and only then swapped in; the database it replaces is kept aside
 * (renamed), never deleted.
 */
export async function restoreSnapshot(file: string, pgliteDir: string, now = new Date()) {
  const unlock = lockDirectory(pgliteDir)
  try {
    const restoring = restoringFolder(pgliteDir)
    await rm(restoring, { recursive: true, force: true })
    let client: PGlite | undefined
    try {
      await unpackSnapshot(file, restoring)
      client = (await startEmbedded({ dataDir: restoring, sharedBuffers: commandSharedBuffers })).client
      // Sign-ins ended after the snapshot was taken (logouts, revocations) would live again: end them all.
      await client.query('update sign_ins set revoked_at = now() where revoked_at is null')
      // What the database acknowledged after the snapshot is gone, and the revisions it handed out would
      // come again: the devices send their sales again, every revision kept is told to reset.
      await client.query(newGenerationSql('restore'))
    } catch (error) {
      await client?.close().catch(() => {})
      await rm(restoring, { recursive: true, force: true, maxRetries: 5 })
      throw new Error(`${file} is not a usable snapshot: ${(error as Error).message}`, { cause: error })
    }
    await client.close()
    ownerOnly(restoring)
    await fsyncTree(restoring)
    const keptAside = existsSync(pgliteDir) ? `${keptAsidePrefix(pgliteDir)}${stamp(now)}` : null
    if (keptAside) await rename(pgliteDir, keptAside)
    await rename(restoring, pgliteDir)
    // The replaced database's mark of an unclean close is not the restored one's (it has a new generation).
    await rm(inUseMarker(pgliteDir), { force: true })
    await fsyncPath(path.dirname(pgliteDir))
    return { keptAside }
  } finally {
    unlock()
  }
}

/**
 * A restore swaps two folders by renaming; a crash between the two renames leaves no database but the
 * restored one beside it (or the replaced one kept aside). Starting then would create an empty database
 * (with demo data): say what happened instead. Called before the embedded database in `pgliteDir` opens.
 */
export function refuseInterruptedRestore(pgliteDir: string) {
  if (existsSync(pgliteDir)) return
  const restoring = path.basename(restoringFolder(pgliteDir))
  const keptAside = path.basename(keptAsidePrefix(pgliteDir))
  const leftovers = readdirSync(path.dirname(pgliteDir)).filter(
    (name) => name === restoring || name.startsWith(keptAside),
  )
  if (leftovers.length === 0) return
  throw new DatabaseDamagedError(
    `The embedded database ${pgliteDir} is missing and ${leftovers.join(', ')} lies beside it: a restore ` +
      'was interrupted. Run the restore again (npm run admin -- restore <snapshot file>), or rename the ' +
      'folder you want back to its place; nothing was deleted.',
  )
}

/** What to do about an embedded database that will not open: restore the newest snapshot, if there is one. */
export function restoreAdvice(snapshotDir: string | undefined): string[] {
  const newest = snapshotDir ? listSnapshots(snapshotDir)[0] : undefined
  if (!newest)
    return [
      `There is no snapshot in ${snapshotDir ?? '(no snapshot folder)'} to restore; restore the data folder from a backup.`,
    ]
  return [
    `The newest snapshot is ${newest.file} (taken ${newest.taken.toISOString()}). With the server stopped, restore it with:`,
    `  npm run admin -- restore ${newest.file}`,
    'The restore keeps the damaged folder under another name; it deletes nothing.',
  ]
}
