// The embedded database: PGlite (PostgreSQL in WebAssembly) in a folder of its own, or in memory for
// tests. How it is started (the write-ahead log's size, the page cache), brought up to date and checked.
// Opening it as this process's database, under its lock (lock.ts), is client.ts's; copying it is
// snapshots.ts's and putting a copy back snapshot-restore.ts's.
import { PGlite } from '@electric-sql/pglite'
import { getTableName, is } from 'drizzle-orm'
import { PgTable } from 'drizzle-orm/pg-core'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from 'drizzle-orm/pglite/migrator'
import { migrationsFolder } from './migrate.ts'
import * as schema from './schema.ts'
import * as messagesSchema from './schema-messages.ts'
import * as outagesSchema from './schema-outages.ts'
import * as paymentsSchema from './schema-payments.ts'
import * as pushSchema from './schema-push.ts'
import * as teamSchema from './schema-team.ts'

/**
 * The page cache a one-off command (`npm run admin`) opens the embedded database with. 128 MB of it made
 * up a quarter of the process (an import of 3,000,000 rows peaked near 490 MB); a command reads most
 * pages about once, so a small cache costs it little. It is only a cache: what is written, the
 * write-ahead log and when it reaches the files are the same at any size. The server keeps 128 MB.
 */
export const commandSharedBuffers = '16MB'

/**
 * The write-ahead log's size, set on every start of the embedded database (its own postgresql.conf
 * allows max_wal_size 1 GB). After each checkpoint PostgreSQL keeps the log files it no longer needs,
 * renamed for reuse, as many as it expects the next checkpoint cycle to fill, up to max_wal_size: after
 * a large import that was the whole 1 GB (1.1 GB of a 1.7 GB folder after 3,000,000 rows), on disk and
 * in every snapshot, until many later checkpoints wore the estimate down. With 64 MB at most four 16 MB
 * files stay after a checkpoint. (Inside one large transaction the log still grows with it: about
 * 1.3 GB for those rows, at either setting, until the next checkpoint.)
 */
const walSettings = ['-c', 'max_wal_size=64MB', '-c', 'min_wal_size=32MB']

/** How the embedded database is started: PGlite's defaults, the log size above, the page cache if given. */
const pgliteStartParams = (sharedBuffers?: string) => [
  ...PGlite.defaultStartParams,
  ...walSettings,
  ...(sharedBuffers ? ['-c', `shared_buffers=${sharedBuffers}`] : []),
]

/** The embedded database failed to open, migrate or answer its check: its files are damaged. */
export class DatabaseDamagedError extends Error {}

/** The tables of the schema, by name: every one of them, also those added later. */
// Every table: the schema's and its parts' (drizzle.config.ts lists the same files).
const tableNames = Object.values({
  ...schema,
  ...teamSchema,
  ...outagesSchema,
  ...paymentsSchema,
  ...messagesSchema,
  ...pushSchema,
})
  .filter((value) => is(value, PgTable))
  .map((table) => getTableName(table))

/**
 * Cheap reads that touch every table of the schema and the catalog, so a damaged file shows at start-up,
 * not on a request.
 */
export async function checkDatabase(client: PGlite) {
  for (const table of tableNames) {
    await client.query(`select count(*) from "${table}"`)
  }
}

/** Brings an embedded database's schema up to date; the server, the admin commands and a restore use it. */
async function migrateEmbedded(client: PGlite) {
  const db = drizzle({ client, schema })
  await migrate(db, { migrationsFolder })
  return db
}

/**
 * Starts PGlite in `dataDir` (in memory when undefined; from the dump `loadDataDir` if given), brings its
 * schema up to date and checks it. On any failure the database is closed again and the error thrown.
 */
export async function startEmbedded(options: {
  dataDir?: string
  loadDataDir?: Blob
  sharedBuffers?: string
}) {
  let client: PGlite | undefined
  try {
    client = await PGlite.create({
      dataDir: options.dataDir,
      loadDataDir: options.loadDataDir,
      startParams: pgliteStartParams(options.sharedBuffers),
    })
    const db = await migrateEmbedded(client)
    await checkDatabase(client)
    return { client, db }
  } catch (error) {
    await client?.close().catch(() => {})
    throw error
  }
}
