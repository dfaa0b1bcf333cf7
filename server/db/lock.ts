// The embedded database's file lock: PGlite is one process's database, so the server and `npm run admin`
// take `<data folder>.lock` before opening it. The lock names its holder (pid, start time, boot, PID
// namespace), is refreshed by a heartbeat while held, and a stale one is taken over by exactly one of
// the processes that find it.
import { createHash } from 'node:crypto'
import { linkSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'

/** Another process holds the embedded database (the server, or an admin command). */
export class DatabaseInUseError extends Error {
  /** Held by a process in another PID namespace: it goes stale by itself if that process is gone. */
  otherNamespace = false
}

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
 * Locks `dataDir`, waiting up to `waitMs` (LOCK_WAIT_MS unless given) while the lock is held from another
 * PID namespace: a container restarted after a crash finds the lock of its dead predecessor, which goes
 * stale once its heartbeat stops (LOCK_STALE_AFTER_MS). A holder seen alive in this namespace is refused
 * at once.
 */
export async function lockWaiting(dataDir: string, waitMs = LOCK_WAIT_MS): Promise<() => void> {
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
