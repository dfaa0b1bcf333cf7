// Held alerts: an alert due in the user's quiet hours is recorded held (in the list only). When the
// quiet hours are over and it is still true, it is released into the outbox; the held alerts of a user
// released at once go in one push (outbox.ts). Held alerts older than a day are not released any more.
import { sql } from 'drizzle-orm'
import { type Db, queryRows } from '../db/client.ts'
import { addHeldUsersSettings, inQuietHours, type MemberSettings, snoozed } from './settings.ts'

/** Held alerts older than this are not pushed any more (they stay in the list). */
export const heldForMs = 24 * 60 * 60_000

interface HeldRow {
  id: number
  user_id: number
  store_id: number | null
  store_ids: number[] | null
  kind: string
  episode: string
}

/**
 * The held alerts ready to go at `now`: an alert of a store out of the member's quiet hours, not snoozed,
 * and still true (`stillTrue`: `store|kind|episode` of this minute's candidates); a summary out of quiet
 * hours for one of the user's stores at least, and only while the user still sees every store it names
 * (decision 155). `settings` is read for the held alerts' users when it holds nothing.
 */
export async function releasableHeld(
  db: Db,
  { settings, stillTrue, now }: { settings: MemberSettings; stillTrue: Set<string>; now: Date },
): Promise<number[]> {
  const at = now.getTime()
  const rows = await queryRows<HeldRow>(
    db,
    sql`select id, user_id, store_id, store_ids, kind, episode from alerts
        where state = 'held' and created_at > ${new Date(at - heldForMs).toISOString()}::timestamptz
        order by user_id, created_at, store_id, kind, id`,
  )
  if (rows.length > 0 && settings.rows.length === 0) await addHeldUsersSettings(db, settings)
  return rows
    .filter((row) => {
      const userId = Number(row.user_id)
      if (row.store_id === null)
        return (
          settings.ofUser(userId).some((setting) => !inQuietHours(setting.hours, now)) &&
          (row.store_ids ?? []).every((storeId) => settings.of(userId, storeId) !== undefined)
        )
      const setting = settings.of(userId, Number(row.store_id))
      return (
        !!setting &&
        !inQuietHours(setting.hours, now) &&
        !snoozed(setting, at) &&
        stillTrue.has(`${row.store_id}|${row.kind}|${row.episode}`)
      )
    })
    .map((row) => Number(row.id))
}
