// Opens the database: PGlite in DATA_DIR by default (or in memory for tests), PostgreSQL when
// DATABASE_URL is set. Both get the same Drizzle schema and the same migrations.
import { createHash } from 'node:crypto'
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import { PGlite } from '@electric-sql/pglite'
import type { SQL } from 'drizzle-orm'
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres'
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import { ownerOnly } from '../files.ts'
import * as schema from './schema.ts'
import { listSnapshots } from './snapshots.ts'

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
    }

/** Where the configuration puts the database: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR. */
export const databaseTarget = (config: {
  databaseUrl?: string
  dataDir: string
  snapshots: { dir: string }
}): DatabaseTarget =>
  config.databaseUrl
    ? { databaseUrl: config.databaseUrl }
    : { pgliteDir: path.join(config.dataDir, 'pglite'), snapshotDir: config.snapshots.dir }

/**
 * The page cache a one-off command (`npm run admin`) opens the embedded database with. 128 MB of it made
 * up a quarter of the process (an import of 3,000,000 rows peaked near 490 MB); a command reads most
 * pages about once, so a small cache costs it little. It is only a cache: what is written, the
 * write-ahead log and when it reaches the files are the same at any size. The server keeps 128 MB.
 */
export const commandSharedBuffers = '16MB'

/**
 * Opens the database for a one-off command (`npm run admin`, and the import bench that measures it),
 * whose memory matters more than its speed. For the embedded database: the small page cache above, and
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
export const pgliteStartParams = (sharedBuffers?: string) => [
  ...PGlite.defaultStartParams,
  ...walSettings,
  ...(sharedBuffers ? ['-c', `shared_buffers=${sharedBuffers}`] : []),
]

export class DatabaseInUseError extends Error {
  /** Held by a process in another PID namespace: it goes stale by itself if that process is gone. */
  otherNamespace = false
}

/** The embedded database failed to open, migrate or answer its check: its files are damaged. */
export class DatabaseDamagedError extends Error {}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const readOrNull = (file: string) => {
  try {
    return readFileSync(file, 'utf8').trim()
  } catch {
    return null
  }
}

/** This boot of the machine (Linux); null elsewhere. */
const bootId = () => readOrNull('/proc/sys/kernel/random/boot_id')

/** When a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat, Linux); null elsewhere. */
function startTime(pid: number): string | null {
  const stat = readOrNull(`/proc/${pid}/stat`)
  // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null
}

/** This process's PID namespace, e.g. `pid:[4026531836]` (Linux); null elsewhere. */
const pidNamespace = () => {
  try {
    return readlinkSync('/proc/self/ns/pid')
  } catch {
    return null
  }
}

/** The holder of a lock refreshes its file's modification time this often. */
export const LOCK_HEARTBEAT_MS = 5_000
/**
 * A lock from another PID namespace whose file was not refreshed for this long is stale: its holder's
 * process cannot be seen from here, so only its heartbeat tells that it still runs (three missed beats).
 */
export const LOCK_STALE_AFTER_MS = 15_000
/** How long opening the database waits for a lock from another PID namespace to go stale. */
const LOCK_WAIT_MS = LOCK_STALE_AFTER_MS + 3_000

interface LockOwner {
  pid: number
  start: string | null
  boot: string | null
  ns: string | null
}

/** Lock files this process holds: a lock naming this process is in use only when it is one of these. */
const heldLocks = new Set<string>()

/**
 * Whether the process a lock file names still holds it. A pid alone is not enough: after a crash in a
 * container the new server is PID 1 again, and after a reboot any pid may be reused. So the lock also
 * names the process's start time and the machine's boot; a lock from another boot, or whose pid now
 * belongs to a process that started at another time, or that names this very process without it
 * holding the lock, is stale.
 *
 * Containers on one host share the boot, and a pid names another process in each PID namespace (PID 1
 * in two containers sharing the data volume). So the lock names the holder's PID namespace too: a lock
 * from another namespace is held while its file's modification time, which the holder refreshes every
 * LOCK_HEARTBEAT_MS, is younger than LOCK_STALE_AFTER_MS, and stale after.
 */
function ownerHolds(file: string, owner: LockOwner, modifiedMs: number): boolean {
  const boot = bootId()
  if (owner.boot && boot && owner.boot !== boot) return false
  const ns = pidNamespace()
  if (owner.ns && ns && owner.ns !== ns) return Date.now() - modifiedMs < LOCK_STALE_AFTER_MS
  if (!Number.isInteger(owner.pid) || owner.pid <= 0 || !isRunning(owner.pid)) return false
  const start = startTime(owner.pid)
  if (owner.start && start && owner.start !== start) return false
  if (owner.pid === process.pid) return heldLocks.has(file)
  return true
}

function readLock(text: string): LockOwner {
  // Written by an older version: the pid alone.
  if (/^\d+$/.test(text)) return { pid: Number(text), start: null, boot: null, ns: null }
  try {
    const { pid, start, boot, ns } = JSON.parse(text) as Partial<LockOwner>
    return { pid: Number(pid), start: start ?? null, boot: boot ?? null, ns: ns ?? null }
  } catch {
    return { pid: Number.NaN, start: null, boot: null, ns: null }
  }
}

/** Waits `ms` without giving the event loop a turn: the lock is taken synchronously. */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Removes `target` if it still holds `text`, in at most one of the processes that try at once: the one
 * that creates the guard `<lock>.takeover-<digest of target and text>` (a link, which fails if the name
 * exists). Reading a stale lock and removing it are two steps: without the guard, of two processes that
 * both judged it stale, the second could remove the lock the first had just put in its place, and both
 * would go on as holders. With it, only the guard's maker removes `text`, after reading it again, and
 * nothing but removal changes a lock file's text. The guard names its maker and is removed when done,
 * microseconds later; one left by a process that died in between is itself removed the same way (a guard
 * of the guard) once its maker is judged gone as a lock's holder is (`ownerHolds`). Returns whether this
 * process removed it; false when another is at it (or did it), or the text changed.
 */
function removeIfStill(lockFile: string, target: string, text: string, mineFile: string, depth = 0): boolean {
  const digest = createHash('sha256').update(`${target}\n${text}`).digest('hex').slice(0, 16)
  const guard = `${lockFile}.takeover-${digest}`
  for (let attempt = 0; ; attempt++) {
    try {
      linkSync(mineFile, guard)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const guardText = readOrNull(guard)
      let modifiedMs: number
      try {
        modifiedMs = statSync(guard).mtimeMs
      } catch {
        continue
      }
      if (guardText === null || attempt > 0 || depth >= 2) return false
      if (ownerHolds(guard, readLock(guardText), modifiedMs)) return false
      // Its maker died while taking `text` over: remove the guard as it would a stale lock, then retry.
      if (!removeIfStill(lockFile, guard, guardText, mineFile, depth + 1)) return false
    }
  }
  try {
    if (readOrNull(target) !== text) return false
    rmSync(target, { force: true })
    return true
  } finally {
    rmSync(guard, { force: true })
  }
}

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt it. A
 * lock file naming the owner (pid, start time, boot, PID namespace) keeps the server and `npm run admin`
 * apart; a stale one is taken over, by one process only of any that start at once (`removeIfStill`).
 * The lock is written whole to a temporary file and linked into place, so another process never reads a
 * half-written one, and a link fails when the name exists, so of two processes linking only one gets it.
 * While held, its modification time is refreshed every LOCK_HEARTBEAT_MS (see ownerHolds).
 */
export function lockDirectory(dataDir: string): () => void {
  const file = `${dataDir}.lock`
  const me: LockOwner = {
    pid: process.pid,
    start: startTime(process.pid),
    boot: bootId(),
    ns: pidNamespace(),
  }
  const mine = JSON.stringify(me)
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, mine, { mode: 0o600 })
  try {
    // A few milliseconds at most: waiting only while another process takes a stale lock over.
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        linkSync(temporary, file)
        heldLocks.add(file)
        // The heartbeat: touches the lock only while it is still ours; it never keeps the process alive.
        const heartbeat = setInterval(() => {
          try {
            if (readOrNull(file) === mine) utimesSync(file, new Date(), new Date())
          } catch {}
        }, LOCK_HEARTBEAT_MS)
        heartbeat.unref()
        return () => {
          clearInterval(heartbeat)
          heldLocks.delete(file)
          rmSync(file, { force: true })
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        let modifiedMs: number
        try {
          modifiedMs = statSync(file).mtimeMs
        } catch {
          continue
        }
        const text = readOrNull(file)
        if (text === null) continue
        const owner = readLock(text)
        if (ownerHolds(file, owner, modifiedMs)) {
          const ns = pidNamespace()
          const otherNamespace = Boolean(owner.ns && ns && owner.ns !== ns)
          const error = new DatabaseInUseError(
            `The database in ${dataDir} is in use by process ${owner.pid}` +
              (otherNamespace
                ? ` of another PID namespace (another container?), whose lock was refreshed ${Math.round((Date.now() - modifiedMs) / 1000)} s ago.`
                : ' (the server?).') +
              ' Stop it first: the embedded database allows one process at a time ' +
              '(with DATABASE_URL and PostgreSQL there is no such limit).',
          )
          error.otherNamespace = otherNamespace
          throw error
        }
        // Stale: removed here only if this process wins the takeover; else another is at it.
        if (!removeIfStill(file, file, text, temporary)) pause(2)
      }
    }
  } finally {
    rmSync(temporary, { force: true })
  }
  throw new DatabaseInUseError(
    `Could not lock ${dataDir}: another process was taking its stale lock over at the same moment. Try again.`,
  )
}

/**
 * Locks `dataDir`, waiting up to `waitMs` while the lock is held from another PID namespace: a container
 * restarted after a crash finds the lock of its dead predecessor, which goes stale once its heartbeat
 * stops (LOCK_STALE_AFTER_MS). A holder seen alive in this namespace is refused at once.
 */
async function lockWaiting(dataDir: string, waitMs: number): Promise<() => void> {
  const deadline = Date.now() + waitMs
  let warned = false
  for (;;) {
    try {
      return lockDirectory(dataDir)
    } catch (error) {
      if (!(error instanceof DatabaseInUseError && error.otherNamespace) || Date.now() >= deadline)
        throw error
      if (!warned)
        console.warn(`${error.message}\nWaiting up to ${Math.round(waitMs / 1000)} s for it to go stale.`)
      warned = true
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, Math.max(0, deadline - Date.now()))))
    }
  }
}

/** Cheap reads that touch every table and the catalog, so a damaged file shows at start-up, not on a request. */
export async function checkDatabase(client: PGlite) {
  for (const table of [
    'users',
    'stores',
    'memberships',
    'usages',
    'usage_years',
    'login_codes',
    'phone_locks',
    'rate_events',
    'refresh_tokens',
    'sign_ins',
  ]) {
    await client.query(`select count(*) from ${table}`)
  }
}

function damagedMessage(pgliteDir: string, cause: unknown, snapshotDir: string | undefined): string {
  const reason = cause instanceof Error ? cause.message : String(cause)
  const lines = [
    `The embedded database in ${pgliteDir} could not be opened or failed its check (${reason}).`,
    'Its files are probably damaged, e.g. by a power cut or a crash of the machine.',
  ]
  const newest = snapshotDir ? listSnapshots(snapshotDir)[0] : undefined
  if (newest) {
    lines.push(
      `The newest snapshot is ${newest.file} (taken ${newest.taken.toISOString()}). With the server stopped, restore it with:`,
      `  npm run admin -- restore ${newest.file}`,
      'The restore keeps the damaged folder under another name; it deletes nothing.',
    )
  } else {
    lines.push(
      `There is no snapshot in ${snapshotDir ?? '(no snapshot folder)'} to restore; restore the data folder from a backup.`,
    )
  }
  return lines.join('\n')
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  if ('databaseUrl' in target) {
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 10 })
    // An idle connection the database ends (a restart, a failover) is reported here; unheard, it would
    // be an uncaught exception that stops the server. The pool drops it and connects anew when needed.
    pool.on('error', (error) => console.error(`PostgreSQL connection lost: ${error.message}`))
    const db = drizzlePostgres({ client: pool, schema })
    await migratePostgres(db, { migrationsFolder })
    return { db, kind: 'postgres', pglite: null, close: () => pool.end() }
  }
  let unlock = () => {}
  if (target.pgliteDir) {
    mkdirSync(path.dirname(target.pgliteDir), { recursive: true, mode: 0o700 })
    unlock = await lockWaiting(target.pgliteDir, target.lockWaitMs ?? LOCK_WAIT_MS)
    try {
      if (!target.loadDataDir) refuseInterruptedRestore(target.pgliteDir)
    } catch (error) {
      unlock()
      throw error
    }
  }
  let client: PGlite | undefined
  try {
    client = await PGlite.create({
      dataDir: target.pgliteDir ?? undefined,
      loadDataDir: target.loadDataDir,
      startParams: pgliteStartParams(target.sharedBuffers),
    })
    const db = await migrateEmbedded(client)
    await checkDatabase(client)
    // PGlite writes the files of a new database world-writable; they hold a business's records.
    if (target.pgliteDir) ownerOnly(target.pgliteDir)
    const opened = client
    const close = async () => {
      await opened.close()
      unlock()
    }
    return { db, kind: 'pglite', pglite: client, close }
  } catch (error) {
    await client?.close().catch(() => {})
    unlock()
    if (error instanceof DatabaseInUseError || !target.pgliteDir || target.loadDataDir) throw error
    throw new DatabaseDamagedError(damagedMessage(target.pgliteDir, error, target.snapshotDir), {
      cause: error,
    })
  }
}

/** Brings an embedded database's schema up to date; the server, the admin commands and a restore use it. */
export async function migrateEmbedded(client: PGlite) {
  const db = drizzlePglite({ client, schema })
  await migratePglite(db, { migrationsFolder })
  return db
}

/**
 * A restore swaps two folders by renaming; a crash between the two renames leaves no database but the
 * restored one beside it (or the replaced one kept aside). Starting then would create an empty database
 * (with demo data): say what happened instead.
 */
function refuseInterruptedRestore(pgliteDir: string) {
  if (existsSync(pgliteDir)) return
  const base = path.basename(pgliteDir)
  const leftovers = readdirSync(path.dirname(pgliteDir)).filter(
    (name) => name === `${base}.restoring` || name.startsWith(`${base}.before-restore-`),
  )
  if (leftovers.length === 0) return
  throw new DatabaseDamagedError(
    `The embedded database ${pgliteDir} is missing and ${leftovers.join(', ')} lies beside it: a restore ` +
      'was interrupted. Run the restore again (npm run admin -- restore <snapshot file>), or rename the ' +
      'folder you want back to its place; nothing was deleted.',
  )
}

/** Rows of a raw SQL query; the two drivers wrap them alike, this hides the difference in types. */
export async function queryRows<Row>(db: Db, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as { rows: Row[] }
  return result.rows
}
