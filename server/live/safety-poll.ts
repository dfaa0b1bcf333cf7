// The safety poll: every `pollMs`, the revisions of the store-years that have held calls and the state
// of their sign-ins are read again, and the listening connection is pinged, so a lost notification
// costs at most that long (decision 81).
import { sql } from 'drizzle-orm'
import { type Database, queryRows } from '../db/client.ts'
import type { LiveLog } from './listener.ts'
import type { Waiters } from './waiters.ts'

/** The safety poll's period (decision 81). */
export const livePollMs = 5_000

export interface SafetyPollOptions {
  database: Database
  waiters: Waiters
  /** Asks the listening connection something (PostgreSQL). */
  ping: () => Promise<void>
  signInEnded: (signInId: string) => void
  closed: () => boolean
  now: () => Date
  stats: { polls: number }
  log?: LiveLog | undefined
}

/** One round of the poll at a time: a round asked for while one runs is that one. */
export function createSafetyPoll(options: SafetyPollOptions) {
  const { database, waiters, ping, signInEnded, closed, now, stats, log } = options
  let polling: Promise<void> | null = null

  async function round() {
    if (database.kind === 'postgres') await ping()
    const { keys, signInIds } = waiters.held()
    if (keys.length === 0 || closed()) return
    stats.polls++
    const revisions = await queryRows<{ store_id: number; year: number; revision: string | number }>(
      database.db,
      sql`select u.store_id, u.year, u.version as revision from usage_years u
          join json_to_recordset(${JSON.stringify(keys.map(({ storeId: s, year: y }) => ({ s, y })))}::json) as k(s integer, y integer)
            on u.store_id = k.s and u.year = k.y`,
    )
    for (const row of revisions) waiters.revisionHeard(row.store_id, row.year, Number(row.revision))
    const live = await queryRows<{ id: string }>(
      database.db,
      sql`select id from sign_ins
          where id in (select jsonb_array_elements_text(${JSON.stringify(signInIds)}::jsonb))
            and revoked_at is null and expires_at > ${now().toISOString()}`,
    )
    const liveIds = new Set(live.map((row) => row.id))
    for (const id of signInIds) if (!liveIds.has(id)) signInEnded(id)
  }

  return {
    /** Runs a round now (or joins the one running). */
    poll(): Promise<void> {
      if (polling) return polling
      polling = round()
        .catch((error) => {
          if (!closed()) log?.warn({ err: error }, 'the live changes poll failed')
        })
        .finally(() => {
          polling = null
        })
      return polling
    },
    /** The round running now, if any. */
    get running() {
      return polling
    },
  }
}
