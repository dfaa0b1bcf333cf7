// Opens the database: PGlite in DATA_DIR by default (or in memory for tests), PostgreSQL when
// DATABASE_URL is set. Both get the same Drizzle schema and the same migrations.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import type { SQL } from 'drizzle-orm'
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres'
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import * as schema from './schema.ts'

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  /** The embedded database itself, when it is PGlite. */
  pglite: PGlite | null
  close(): Promise<void>
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url))

export type DatabaseTarget =
  | { databaseUrl: string }
  /** A PGlite in `dataDir`, or in memory when null; `loadDataDir` starts it from a dump (fast, for tests). */
  | { pgliteDir: string | null; loadDataDir?: Blob }

/** Where the configuration puts the database: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR. */
export const databaseTarget = (config: { databaseUrl?: string; dataDir: string }): DatabaseTarget =>
  config.databaseUrl
    ? { databaseUrl: config.databaseUrl }
    : { pgliteDir: path.join(config.dataDir, 'pglite') }

export class DatabaseInUseError extends Error {}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt it. A
 * lock file holding the owner's pid keeps the server and `npm run admin` apart; a stale one is taken over.
 */
function lockDirectory(dataDir: string): () => void {
  const file = `${dataDir}.lock`
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' })
      return () => rmSync(file, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = Number(readFileSync(file, 'utf8'))
      if (isRunning(owner)) {
        throw new DatabaseInUseError(
          `The database in ${dataDir} is in use by process ${owner} (the server?). Stop it first: the embedded ` +
            'database allows one process at a time (with DATABASE_URL and PostgreSQL there is no such limit).',
        )
      }
      rmSync(file, { force: true })
    }
  }
  throw new DatabaseInUseError(`Could not lock ${dataDir}`)
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if ('databaseUrl' in target) {
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 10 })
    const db = drizzlePostgres({ client: pool, schema })
    await migratePostgres(db, { migrationsFolder })
    return { db, kind: 'postgres', pglite: null, close: () => pool.end() }
  }
  let unlock = () => {}
  if (target.pgliteDir) {
    mkdirSync(path.dirname(target.pgliteDir), { recursive: true })
    unlock = lockDirectory(target.pgliteDir)
  }
  try {
    const client = new PGlite({ dataDir: target.pgliteDir ?? undefined, loadDataDir: target.loadDataDir })
    const db = drizzlePglite({ client, schema })
    await migratePglite(db, { migrationsFolder })
    const close = async () => {
      await client.close()
      unlock()
    }
    return { db, kind: 'pglite', pglite: client, close }
  } catch (error) {
    unlock()
    throw error
  }
}

/** Rows of a raw SQL query; the two drivers wrap them alike, this hides the difference in types. */
export async function queryRows<Row>(db: Db, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as { rows: Row[] }
  return result.rows
}
