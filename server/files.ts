// The data folder holds a business's sales records, its users' phone numbers and the secret that signs
// sign-ins: nobody but the account that runs the server may read or change any of it. What the product
// writes is made owner-only; what an operator keeps beside it (their pictures, a mounted disk's
// lost+found) is left as it is.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { isEmbeddedOrBeside, isSnapshotFile } from './db/data-names.ts'

/** Where a path that cannot be read or changed is reported; standard error unless told. */
export type Warn = (message: string) => void
const warnOnStderr: Warn = (message) => console.warn(message)

const describeError = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error)

/** The names in `dir`, or none (with a warning unless it does not exist). */
function namesIn(dir: string, warn: Warn): string[] {
  try {
    return readdirSync(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      warn(`Could not read the folder ${dir} (${describeError(error)}); what it holds is left as it is.`)
    return []
  }
}

/**
 * Takes every group and other permission off `target` and, for a folder, off everything in it
 * (folders end up 0700, files 0600). Symbolic links are left alone, and so is what they point to. An
 * entry that cannot be read or changed (another account's, say) is reported to `warn` and passed
 * over: it is never a reason to stop.
 */
export function ownerOnly(target: string, warn: Warn = warnOnStderr) {
  let stat: ReturnType<typeof lstatSync>
  try {
    stat = lstatSync(target)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      warn(`Could not check the permissions of ${target} (${describeError(error)}); left as it is.`)
    return
  }
  if (stat.isSymbolicLink()) return
  try {
    if ((stat.mode & 0o077) !== 0) chmodSync(target, stat.mode & 0o700)
  } catch (error) {
    warn(`Could not make ${target} owner-only (${describeError(error)}); left as it is.`)
  }
  if (stat.isDirectory()) for (const name of namesIn(target, warn)) ownerOnly(path.join(target, name), warn)
}

/** The folders of IMAGE_DIR the product writes pictures into (seed.ts: demo/; admin.ts: users/, stores/). */
const pictureFolders = ['demo', 'users', 'stores']

/**
 * Run first by the server and the admin commands: files they create from now on are owner-only
 * (umask 077), DATA_DIR exists and is 0700, and what the product wrote with wider permissions in an
 * earlier version is made owner-only: in DATA_DIR the database (and copies a restore kept aside), its
 * lock and the generated secret; in IMAGE_DIR the folders it copies pictures into; in SNAPSHOT_DIR the
 * snapshots. Nothing else in those folders is walked or changed, so an operator's own pictures keep
 * their permissions and a mounted disk's root-owned lost+found is never opened. Whatever cannot be
 * read or changed is a warning, never a refused start.
 */
export function secureDataDir(
  config: { dataDir: string; imageDir: string; snapshots: { dir: string } },
  warn: Warn = warnOnStderr,
) {
  process.umask(0o077)
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
  try {
    chmodSync(config.dataDir, 0o700)
  } catch (error) {
    warn(`Could not make ${config.dataDir} owner-only (${describeError(error)}); left as it is.`)
  }
  for (const name of namesIn(config.dataDir, warn)) {
    // The database (and copies kept aside by a restore), its lock, the generated secret.
    if (isEmbeddedOrBeside(name) || name === 'jwt-secret') ownerOnly(path.join(config.dataDir, name), warn)
  }
  for (const folder of pictureFolders) ownerOnly(path.join(config.imageDir, folder), warn)
  for (const name of namesIn(config.snapshots.dir, warn)) {
    if (isSnapshotFile(name)) ownerOnly(path.join(config.snapshots.dir, name), warn)
  }
}
