// Opens the database: PGlite in DATA_DIR by default (or in memory for tests), PostgreSQL when
// DATABASE_URL is set. Both get the same Drizzle schema and the same migrations.
import { mkdirSync } from 'node:fs'
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

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if ('databaseUrl' in target) {
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 10 })
    const db = drizzlePostgres({ client: pool, schema })
    await migratePostgres(db, { migrationsFolder })
    return { db, kind: 'postgres', pglite: null, close: () => pool.end() }
  }
  if (target.pgliteDir) mkdirSync(path.dirname(target.pgliteDir), { recursive: true })
  const client = new PGlite({ dataDir: target.pgliteDir ?? undefined, loadDataDir: target.loadDataDir })
  const db = drizzlePglite({ client, schema })
  await migratePglite(db, { migrationsFolder })
  return { db, kind: 'pglite', pglite: client, close: () => client.close() }
}

/** Rows of a raw SQL query; the two drivers wrap them alike, this hides the difference in types. */
export async function queryRows<Row>(db: Db, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as { rows: Row[] }
  return result.rows
}
