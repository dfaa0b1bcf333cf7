// The live changes of this instance (docs/architecture.md, "Live changes"): the held calls (waiters.ts)
// and the answers each sign-in holds open (occupancy.ts), woken by what the listener hears
// (listener.ts) and by the safety poll (safety-poll.ts). server/plugins/live.ts decorates the server with one.
import type { Database } from '../db/client.ts'
import { createListener, type LiveLog } from './listener.ts'
import { createOccupancy } from './occupancy.ts'
import { createSafetyPoll, livePollMs } from './safety-poll.ts'
import { createWaiters, type StoreYear, type Waiter } from './waiters.ts'

export { countedAnswerBytes, heldPerSignIn } from './occupancy.ts'
export { livePollMs } from './safety-poll.ts'
export type { StoreYear, Waiter, Woken } from './waiters.ts'

export interface LiveOptions {
  database: Database
  /** Called when another instance (or this one) ends a sign-in: the token checks forget it at once. */
  onSignInEnded?: (signInId: string) => void
  now?: () => Date
  log?: LiveLog
  pollMs?: number
}

export function createLive({
  database,
  onSignInEnded,
  now = () => new Date(),
  log,
  pollMs = livePollMs,
}: LiveOptions) {
  const stats = { held: 0, notifications: 0, polls: 0, listens: 0 }
  let closed = false
  const isClosed = () => closed
  const waiters = createWaiters(stats)
  const occupancy = createOccupancy()

  function signInEnded(signInId: string) {
    onSignInEnded?.(signInId)
    waiters.signInEnded(signInId)
  }

  function heardChange(payload: string) {
    stats.notifications++
    const [storeId, year, revision] = payload.split(':').map(Number)
    if (storeId !== undefined && year !== undefined && revision !== undefined && Number.isFinite(revision))
      waiters.revisionHeard(storeId, year, revision)
  }

  // A member's access to a store changed (removed, role or money setting): every held call and stream
  // of that store reads again, and those of a caller who lost it end (docs/product.md §15).
  function heardMembership(payload: string) {
    stats.notifications++
    const storeId = Number(payload.split(':')[0])
    if (Number.isInteger(storeId)) waiters.storeChanged(storeId)
  }

  const listener = createListener({
    channels: {
      usage_changes: heardChange,
      sign_ins_ended: signInEnded,
      memberships_changed: heardMembership,
    },
    maxReconnectMs: pollMs,
    onRelisten: () => void safety.poll(),
    closed: isClosed,
    stats,
    log,
  })
  const safety = createSafetyPoll({
    database,
    waiters,
    ping: listener.ping,
    signInEnded,
    closed: isClosed,
    now,
    stats,
    log,
  })
  const poller = setInterval(() => void safety.poll(), pollMs)
  poller.unref()

  return {
    stats,
    /** Holds a call that any change of the given store-years wakes (each above its own revision). */
    hold: (keys: StoreYear[], signInId: string): Waiter => waiters.hold(keys, signInId),
    poll: safety.poll,
    listenerPid: listener.pid,
    /** The calls held now. */
    get held() {
      return stats.held
    },
    isFull: occupancy.isFull,
    occupy: occupancy.occupy,
    occupied: occupancy.occupied,

    /** Starts listening: PGlite's listen(), or the dedicated PostgreSQL connection. */
    start: (connectionString?: string) => listener.start(database.pglite, connectionString),

    /** Answers every held call (closing: it answers what it last read) and refuses new waits. */
    endHeld() {
      closed = true
      waiters.endHeld()
    },

    /** Stops listening for good; only the safety poll wakes held calls after this. */
    stopListening: listener.stop,

    /** Stops the poll and the listening; before the database closes. */
    async close() {
      closed = true
      waiters.refuse()
      clearInterval(poller)
      await listener.stop()
      await safety.running
    },
  }
}

export type Live = ReturnType<typeof createLive>
