// Opens the database: PGlite in DATA_DIR by default (or in memory for tests), PostgreSQL when
// DATABASE_URL is set. Both get the same Drizzle schema and the same migrations. The embedded database
// is opened under its lock (lock.ts), started as embedded.ts says, and, when it will not open, the error
// says what snapshot-restore.ts offers to restore.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import type { PGlite } from '@electric-sql/pglite'
import type { SQL } from 'drizzle-orm'
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres'
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { ownerOnly } from '../files.ts'
import { embeddedFolderName } from './data-names.ts'
import { commandSharedBuffers, DatabaseDamagedError, startEmbedded } from './embedded.ts'
import { fsyncTree } from './fsync.ts'
import { leftUnclean, markClosed, markInUse, newGenerationSql } from './generation.ts'
import { DatabaseInUseError, lockWaiting } from './lock.ts'
import { migrationsFolder } from './migrate.ts'
import * as schema from './schema.ts'
import { refuseInterruptedRestore, restoreAdvice } from './snapshot-restore.ts'
import { type Watchdog, watchDatabase } from './watchdog.ts'

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  /** The embedded database itself, when it is PGlite. */
  pglite: PGlite | null
  /** PostgreSQL's address, for a connection of its own (the live changes' listener, server/live/live.ts). */
  connectionString?: string
  /**
   * Starts the embedded database's watchdog (watchdog.ts): from now on a statement running longer than
   * `ms` ends the process. Nothing with PostgreSQL, or when `ms` is 0. The server calls it once open,
   * migrated and seeded (the demo seed's one statement ran 34 s on a busy machine).
   */
  watchStalls(ms: number): void
  close(): Promise<void>
}

export type DatabaseTarget =
  | { databaseUrl: string }
  /**
   * A PGlite in `pgliteDir`, or in memory when null; `loadDataDir` starts it from a dump (fast, for
   * tests). `snapshotDir` is where its snapshots are, named when the database turns out damaged.
   */
  | {
      pgliteDir: string | null
      loadDataDir?: Blob
      snapshotDir?: string
      /** How long to wait for a lock from another PID namespace to go stale; LOCK_WAIT_MS unless given (tests). */
      lockWaitMs?: number
      /**
       * PostgreSQL's page cache (shared_buffers) inside the embedded database, e.g. '16MB'; 128MB, the
       * setting in the database's own postgresql.conf, unless given. PGlite keeps it in the process's
       * own memory, and all of it is resident from the start. See `commandSharedBuffers`.
       */
      sharedBuffers?: string
      /** Starts the watchdog at once (see `Database.watchStalls`); tests. */
      stallMs?: number
    }

/** Where the configuration puts the database: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR. */
export const databaseTarget = (config: {
  databaseUrl?: string
  dataDir: string
  snapshots: { dir: string }
}): DatabaseTarget =>
  config.databaseUrl
    ? { databaseUrl: config.databaseUrl }
    : { pgliteDir: path.join(config.dataDir, embeddedFolderName), snapshotDir: config.snapshots.dir }

/**
 * Opens the database for a one-off command (`npm run admin`, and the import bench that measures it),
 * whose memory matters more than its speed. For the embedded database: a small page cache
 * (`commandSharedBuffers`, embedded.ts), and
 * V8 compiles PGlite's WebAssembly with its baseline compiler (Liftoff) only. By default V8 recompiles
 * the busiest functions with its optimizing compiler as they run, which left 50–60 MB more resident
 * (code and the compiler's memory) and made an import of 300,000 rows about a third faster. The flag is set before the
 * engine is compiled and concerns only how WebAssembly is compiled, which this process uses for PGlite
 * alone; what the database does is the same. The server is left as it is.
 */
export function openForCommand(target: DatabaseTarget): Promise<Database> {
  if (!('pgliteDir' in target)) return openDatabase(target)
  v8.setFlagsFromString('--liftoff-only')
  return openDatabase({ ...target, sharedBuffers: target.sharedBuffers ?? commandSharedBuffers })
}

function damagedMessage(pgliteDir: string, cause: unknown, snapshotDir: string | undefined): string {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return [
    `The embedded database in ${pgliteDir} could not be opened or failed its check (${reason}).`,
    'Its files are probably damaged, e.g. by a power cut or a crash of the machine.',
    ...restoreAdvice(snapshotDir),
  ].join('\n')
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if ('databaseUrl' in target) {
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 10 })
    // An idle connection the database ends (a restart, a failover) is reported here; unheard, it would
    // be an uncaught exception that stops the server. The pool drops it and connects anew when needed.
    pool.on('error', (error) => console.error(`PostgreSQL connection lost: ${error.message}`))
    const db = drizzlePostgres({ client: pool, schema })
    await migratePostgres(db, { migrationsFolder })
    return {
      db,
      kind: 'postgres',
      pglite: null,
      connectionString: target.databaseUrl,
      watchStalls: () => {},
      close: () => pool.end(),
    }
  }
  let unlock = () => {}
  if (target.pgliteDir) {
    mkdirSync(path.dirname(target.pgliteDir), { recursive: true, mode: 0o700 })
    unlock = await lockWaiting(target.pgliteDir, target.lockWaitMs)
    try {
      if (!target.loadDataDir) refuseInterruptedRestore(target.pgliteDir)
    } catch (error) {
      unlock()
      throw error
    }
  }
  let client: PGlite | undefined
  try {
    const started = await startEmbedded({
      dataDir: target.pgliteDir ?? undefined,
      loadDataDir: target.loadDataDir,
      sharedBuffers: target.sharedBuffers,
    })
    client = started.client
    const { pgliteDir } = target
    // PGlite writes the files of a new database world-writable; they hold a business's records.
    if (pgliteDir) ownerOnly(pgliteDir)
    // Not closed cleanly last time: writes it acknowledged may be lost, so the devices resend theirs
    // (generation.ts). Decided before anything is answered.
    if (pgliteDir && !target.loadDataDir) {
      if (leftUnclean(pgliteDir)) await client.exec(newGenerationSql('unclean start'))
      markInUse(pgliteDir)
    }
    const opened = client
    let watchdog: Watchdog | null = null
    const watchStalls = (ms: number) => {
      if (ms > 0 && !watchdog) watchdog = watchDatabase(opened, ms)
    }
    if (target.stallMs) watchStalls(target.stallMs)
    const close = async () => {
      await opened.close()
      await watchdog?.stop()
      // PGlite never syncs: its files reach the disk here, before the close counts as clean.
      if (pgliteDir && !target.loadDataDir) {
        await fsyncTree(pgliteDir)
        markClosed(pgliteDir)
      }
      unlock()
    }
    return { db: started.db, kind: 'pglite', pglite: client, watchStalls, close }
  } catch (error) {
    await client?.close().catch(() => {})
    unlock()
    if (error instanceof DatabaseInUseError || !target.pgliteDir || target.loadDataDir) throw error
    throw new DatabaseDamagedError(damagedMessage(target.pgliteDir, error, target.snapshotDir), {
      cause: error,
    })
  }
}

/** Rows of a raw SQL query; the two drivers wrap them alike, this hides the difference in types. */
export async function queryRows<Row>(db: Db, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as { rows: Row[] }
  return result.rows
}

/**
 * A list of integers as ONE query parameter, PostgreSQL's array literal (`{1,2,3}`), to cast in the
 * query (`= any(${intArray(ids)}::int[])`, `unnest(…)`). Never a list of parameters or of row
 * constructors inside IN: PGlite hung on such lists (docs/upstream/pglite-row-constructor-hang.md), and
 * tests/server/db/no-in-lists.test.ts finds them. Throws on anything but a safe integer.
 */
export function intArray(values: readonly number[]): string {
  for (const value of values)
    if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer for an array parameter: ${value}`)
  return `{${values.join(',')}}`
}
