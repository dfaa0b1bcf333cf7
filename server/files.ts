// The data folder holds a business's sales records, its users' phone numbers and the secret that signs
// sign-ins: nobody but the account that runs the server may read or change any of it.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'

/**
 * Takes every group and other permission off `target` and, for a folder, off everything in it
 * (folders end up 0700, files 0600). Symbolic links are left alone, and so is what they point to.
 */
export function ownerOnly(target: string) {
  let stat: ReturnType<typeof lstatSync>
  try {
    stat = lstatSync(target)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  if (stat.isSymbolicLink()) return
  if ((stat.mode & 0o077) !== 0) chmodSync(target, stat.mode & 0o700)
  if (stat.isDirectory()) {
    for (const name of readdirSync(target)) ownerOnly(path.join(target, name))
  }
}

/**
 * Run first by the server and the admin commands: files they create from now on are owner-only
 * (umask 077), DATA_DIR exists and is 0700, and what earlier versions left in it with wider
 * permissions (the database, images, snapshots, the generated secret) is made owner-only. Only the
 * folders this product writes are walked, never the whole of a DATA_DIR someone pointed elsewhere.
 */
export function secureDataDir(config: { dataDir: string; imageDir: string; snapshots: { dir: string } }) {
  process.umask(0o077)
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
  chmodSync(config.dataDir, 0o700)
  for (const name of readdirSync(config.dataDir)) {
    // The database (and copies kept aside by a restore), its lock, the generated secret.
    if (name.startsWith('pglite') || name === 'jwt-secret') ownerOnly(path.join(config.dataDir, name))
  }
  ownerOnly(config.imageDir)
  ownerOnly(config.snapshots.dir)
}
