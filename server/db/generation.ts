// The database's generation (schema.ts, `database_generation`): a random token told to the devices with
// every answer. It changes whenever the database may have lost writes it had acknowledged: a snapshot
// restored (snapshot-restore.ts), the embedded database opened after its last holder did not close it cleanly
// (client.ts: a power cut or an OS crash may have kept only part of what it wrote), or by hand on
// PostgreSQL after a restore from a backup (docs/operations.md). A device that sees it change sends
// again the sales it was acknowledged in the last days (device/queue.ts); the per-device sale ids make
// that safe: what the database still holds counts as duplicates.
import { closeSync, existsSync, fsyncSync, openSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { type SQL, sql } from 'drizzle-orm'
import { inUseMarkerName } from './data-names.ts'

/**
 * The statement for a database that may have gone back in time (migration 0011's
 * `database_went_back`): a new generation, and every year's revision moved to a new epoch, so that
 * neither a device's acknowledgement nor a client's kept revision can outlive what was lost.
 * `reason` is a literal of ours, never user input.
 */
export const newGenerationSql = (reason: string) =>
  `select database_went_back('${reason.replace(/'/g, "''")}')`

/** The subquery that reads the current generation inside another statement. */
export const generationSubquery = sql`(select generation from database_generation where id = 1)`

/** The database or a transaction: only its `execute` (client.ts's `Db` would be an import circle). */
type Executes = { execute(query: SQL): PromiseLike<unknown> }

export async function currentGeneration(db: Executes): Promise<string> {
  // Not client.ts's queryRows: client.ts imports this module.
  const result = (await db.execute(sql`select ${generationSubquery} as generation`)) as unknown as {
    rows: { generation: string }[]
  }
  const [row] = result.rows
  if (!row?.generation) throw new Error('the database has no generation (migration 0011 missing?)')
  return row.generation
}

/**
 * The marker of an embedded database in use, beside its folder: made (and synced) when it opens, removed
 * when it closes cleanly, after its files were synced. Found at an open, it says the last holder did not
 * close it cleanly: a power cut or an OS crash may have kept only part of its writes.
 */
export const inUseMarker = inUseMarkerName

function syncPath(target: string) {
  const fd = openSync(target, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Whether the embedded database in `pgliteDir` was left without a clean close. */
export const leftUnclean = (pgliteDir: string) => existsSync(inUseMarker(pgliteDir))

/** Marks the embedded database in use, durably (the marker and its folder synced). */
export function markInUse(pgliteDir: string) {
  const marker = inUseMarker(pgliteDir)
  writeFileSync(marker, `${process.pid}\n`, { mode: 0o600 })
  syncPath(marker)
  syncPath(path.dirname(marker))
}

/** After its files were synced: the embedded database was closed cleanly. */
export function markClosed(pgliteDir: string) {
  rmSync(inUseMarker(pgliteDir), { force: true })
  syncPath(path.dirname(pgliteDir))
}
