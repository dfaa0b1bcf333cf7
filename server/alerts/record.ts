// Recording an alert: the one place that writes the alerts table. The database decides, never an
// instance's memory: an alert is a row whose key (user, store, kind, episode) is unique, so of several
// instances that compute the same alert exactly one records it. An alert counted in the caps is
// recorded in a transaction holding the user's advisory lock, which counts the day's alerts first; a
// resume or a summary is not counted and is recorded by an insert that does nothing when the row exists.
// An alert due in the user's quiet hours is recorded `held` (in the list only); one recorded `sent`, or
// a held one released, is in the outbox (`push_pending`) until an instance takes it to push it
// (outbox.ts), after the evaluation.
import { type SQL, sql } from 'drizzle-orm'
import type { AlertKind } from '../../contract/api.ts'
import { dayMs, startOfDay } from '../../domain/calendar.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'

/** At most this many alerts a store and a day, and in all a day (the resumes and the morning summary not counted). */
export const caps = { store: 3, all: 6 }
/** A replacement's episode (a resume, a machine or terminal working again) is its alert's with this suffix. */
export const resumeSuffix = '/resume'

export interface NewAlert {
  userId: number
  storeId: number | null
  /** The stores a summary names (its storeId is null): listed and released only while the user sees them all. */
  storeIds?: number[] | null
  /** The stores whose won amounts its text names: listed and pushed only while the user sees them (§15). */
  moneyStoreIds?: number[] | null
  kind: AlertKind
  episode: string
  title: string
  body: string
  tag: string
  /** The channels it goes by (decision 230); by push only when not given. */
  routes?: { push: boolean; kakao: boolean }
}

/** The alert's row: held, or sent (then in the outbox) at `at`. */
const values = (alert: NewAlert, held: boolean, at: Date) => {
  const { push, kakao } = alert.routes ?? { push: true, kakao: false }
  return sql`(${alert.userId}, ${alert.storeId}, ${alert.storeIds ? intArray(alert.storeIds) : null}::int[],
    ${alert.moneyStoreIds ? intArray(alert.moneyStoreIds) : null}::int[], ${alert.kind},
    ${alert.episode}, ${alert.title}, ${alert.body}, ${alert.tag}, ${held ? 'held' : 'sent'},
    ${at.toISOString()}::timestamptz, ${held ? null : at.toISOString()}::timestamptz, ${push && !held},
    ${push}, ${kakao}, ${kakao && !held})`
}
const columns = sql`(user_id, store_id, store_ids, money_store_ids, kind, episode, title, body, tag, state, created_at,
  sent_at, push_pending, by_push, by_kakao, message_pending)`

/**
 * Records an alert of a store under the user's lock, after counting the day's alerts against the
 * caps; 'exists' when it was recorded before (by any instance), 'capped' when over a cap (not recorded).
 */
export async function recordCounted(db: Db, alert: NewAlert, held: boolean, at: Date) {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(24, ${alert.userId})`)
    const [existing] = await queryRows<{ id: number }>(
      tx,
      sql`select id from alerts where user_id = ${alert.userId} and store_id is not distinct from ${alert.storeId}
            and kind = ${alert.kind} and episode = ${alert.episode}`,
    )
    if (existing) return 'exists' as const
    const dayStart = new Date(startOfDay(at.getTime())).toISOString()
    const [counts] = await queryRows<{ total: string | number; store: string | number }>(
      tx,
      sql`select count(*) as total, count(*) filter (where store_id = ${alert.storeId}) as store
            from alerts where user_id = ${alert.userId} and kind <> 'morningSummary'
              and episode not like ${`%${resumeSuffix}`} and created_at >= ${dayStart}::timestamptz`,
    )
    if (Number(counts?.total ?? 0) >= caps.all || Number(counts?.store ?? 0) >= caps.store)
      return 'capped' as const
    await tx.execute(sql`insert into alerts ${columns} values ${values(alert, held, at)}`)
    return held ? ('held' as const) : ('sent' as const)
  })
}

/** Records an alert that is not counted (a resume, a summary) once; true when this call recorded it. */
export async function recordOnce(db: Db, alert: NewAlert, held: boolean, at: Date) {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`insert into alerts ${columns} values ${values(alert, held, at)} on conflict do nothing returning id`,
  )
  return rows.length > 0
}

/** Which of the candidates (store, kind, episode) are recorded already, for whom: `user|store|kind|episode`. */
export async function recordedAlready(
  db: Db,
  candidates: { storeId: number; kind: string; episode: string }[],
): Promise<Set<string>> {
  if (candidates.length === 0) return new Set()
  const rows = await queryRows<{ user_id: number; store_id: number; kind: string; episode: string }>(
    db,
    // One JSON parameter joined, never a list of row constructors: PGlite hung on such a list of 250
    // rows or more the second time it ran (docs/upstream/pglite-row-constructor-hang.md).
    sql`select a.user_id, a.store_id, a.kind, a.episode
        from jsonb_to_recordset(${JSON.stringify(
          candidates.map((c) => ({ store_id: c.storeId, kind: c.kind, episode: c.episode })),
        )}::jsonb) as c(store_id int, kind text, episode text)
        join alerts a on a.store_id = c.store_id and a.kind = c.kind and a.episode = c.episode`,
  )
  return new Set(rows.map((row) => `${row.user_id}|${row.store_id}|${row.kind}|${row.episode}`))
}

/**
 * Releases held alerts (their quiet hours over) into the outbox: whichever instance's update takes a
 * row releases it. Answers the ids this call took.
 */
export async function releaseHeld(db: Db, ids: number[], at: Date) {
  const taken = await queryRows<{ id: number }>(
    db,
    sql`update alerts set state = 'sent', sent_at = ${at.toISOString()}::timestamptz, push_pending = by_push,
          message_pending = by_kakao
        where state = 'held' and id = any(${intArray(ids)}::bigint[]) returning id`,
  )
  return taken.map((row) => Number(row.id))
}

/** An alert pushed and not replaced yet, with its store's name. */
export interface UnreplacedAlert<Kind extends AlertKind = AlertKind> {
  user_id: number
  store_id: number
  store_name: string
  kind: Kind
  episode: string
  tag: string
}

/**
 * The alerts of these kinds pushed in the last two days and not replaced yet (no row of their episode
 * with `resumeSuffix`), narrowed by `where` (on `a`): what each cause's replacement looks at (a store
 * selling again, devices back, a machine or terminal working, a silent machine selling).
 */
export function unreplacedAlerts<Kind extends AlertKind>(
  db: Db,
  kinds: readonly Kind[],
  at: number,
  where: SQL = sql`true`,
) {
  return queryRows<UnreplacedAlert<Kind>>(
    db,
    sql`select a.user_id, a.store_id, (select s.name from stores s where s.id = a.store_id) as store_name,
          a.kind, a.episode, a.tag
        from alerts a
        where a.kind = any(${`{${kinds.join(',')}}`}::text[]) and a.state = 'sent'
          and a.created_at > ${new Date(at - 2 * dayMs).toISOString()}::timestamptz
          and a.episode not like ${`%${resumeSuffix}`} and ${where}
          and not exists (select 1 from alerts r where r.user_id = a.user_id and r.store_id = a.store_id
            and r.kind = a.kind and r.episode = a.episode || ${resumeSuffix})`,
  )
}
