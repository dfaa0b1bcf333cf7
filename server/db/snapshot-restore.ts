// Putting a snapshot (snapshots.ts) back as the embedded database, streaming it into a new folder beside
// the stopped one. This module alone names the folders a restore leaves beside the database, and says
// what to do with them when the database will not open (`restoreAdvice`, `refuseInterruptedRestore`).

import { once } from 'node:events'
import { createReadStream, existsSync, readdirSync } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { PGlite } from '@electric-sql/pglite'
import { extract as extractTar } from 'tar'
import { ownerOnly } from '../files.ts'
import { keptAsidePrefix, restoringFolder, stamp } from './data-names.ts'
import { commandSharedBuffers, DatabaseDamagedError, startEmbedded } from './embedded.ts'
import { fsyncPath, fsyncTree } from './fsync.ts'
import { inUseMarker, newGenerationSql } from './generation.ts'
import { lockDirectory } from './lock.ts'
import { listSnapshots } from './snapshots.ts'

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
