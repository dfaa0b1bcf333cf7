// The 알림톡 outbox's sweep (docs/product.md §12, decision 250), run by every instance with each delivery:
// a row stays `taken` or `sending` only while an instance works on it, so one left so longer than
// `inFlightBoundMs` belongs to an instance that stopped (a crash, a kill, a lost machine). One left
// `taken` was never handed to the provider: it goes back to the outbox and is sent once, later (past its
// lifetime the next take fails it, as any). One left `sending` may have reached the provider: it is never
// sent again (no duplicate 알림톡) and becomes `unknown`, final. Each is one update: on several instances
// the row's lock lets one of them change it. An instance that was only slow and comes back to a row it
// took finds it no longer its own (its take's instant is kept with the row) and leaves it to whoever took
// it since (message-outbox.ts `withinCap`); a send that ends after its row was made `unknown` still
// records how it went.
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../db/client.ts'

/** How long a row may stay taken or sending before its instance counts as stopped. */
export const inFlightBoundMs = 5 * 60_000

export interface SweepReport {
  /** Rows left `taken`, back in the outbox. */
  retaken: number
  /** Rows left `sending`, now `unknown`. */
  unknown: number
}

/** Sweeps what stopped instances left in flight at `now`. */
export async function sweepInFlight(db: Db, now: Date): Promise<SweepReport> {
  const before = new Date(now.getTime() - inFlightBoundMs).toISOString()
  // A row taken before its instant was kept (an older version's) counts from when it was due.
  const since = sql`coalesce(message_taken_at, sent_at) < ${before}::timestamptz`
  const retaken = await queryRows<{ id: number }>(
    db,
    sql`update alerts set message_pending = true, message_status = null, message_taken_at = null
        where message_status = 'taken' and ${since} returning id`,
  )
  const unknown = await queryRows<{ id: number }>(
    db,
    sql`update alerts set message_status = 'unknown' where message_status = 'sending' and ${since} returning id`,
  )
  return { retaken: retaken.length, unknown: unknown.length }
}
