// Back to selling: a quiet alert that was pushed is replaced once when the store sells again (the same
// tag, so the phone shows the replacement in its place), telling the gap the store was quiet for. A
// replacement, not a second buzz: sent in quiet hours too, not counted in the caps, and only to a member
// still who wants the store's quiet alerts now (not snoozed, not turned off).
import { sql } from 'drizzle-orm'
import { resumedAlert } from '../../domain/alert-texts.ts'
import { type Db, queryRows } from '../db/client.ts'
import { type NewAlert, resumeSuffix, type UnreplacedAlert, unreplacedAlerts } from './record.ts'
import { type MemberSettings, snoozed } from './settings.ts'
import type { StoreRecord } from './store-state.ts'

export type OpenQuietAlert = UnreplacedAlert<'quiet'>

/** The quiet alerts pushed in the last two days and not replaced yet: their stores may have sold since. */
export const openQuietAlerts = (db: Db, at: number) => unreplacedAlerts(db, ['quiet'], at)

/**
 * The gap a quiet episode (begun at `since`) was in: the store's last sale at or before `since` (the
 * episode's `since` is 00:00 UTC when that sale was the day before) and its first sale after it (not
 * its latest: several may have come since the last evaluation). Read only when sales resumed.
 */
async function gapOf(db: Db, storeId: number, since: number) {
  const at = new Date(since).toISOString()
  const [row] = await queryRows<{ before: Date | string | null; after: Date | string | null }>(
    db,
    sql`select (select max(created_at) from usages where store_id = ${storeId} and created_at <= ${at}::timestamptz) as before,
          (select min(created_at) from usages where store_id = ${storeId} and created_at > ${at}::timestamptz) as after`,
  )
  if (!row?.after) return null
  return {
    lastBefore: row.before === null ? since : new Date(row.before).getTime(),
    firstAfter: new Date(row.after).getTime(),
  }
}

/** The replacements due at `at`: for each open quiet alert whose store sold after the episode began. */
export async function resumedAlerts(
  db: Db,
  {
    open,
    stores,
    settings,
    at,
  }: {
    open: OpenQuietAlert[]
    stores: Map<number, StoreRecord>
    settings: MemberSettings
    at: number
  },
): Promise<NewAlert[]> {
  const alerts: NewAlert[] = []
  for (const row of open) {
    const store = stores.get(Number(row.store_id))
    const since = Date.parse(row.episode)
    if (!store || store.lastSaleAt === null || store.lastSaleAt <= since) continue
    const setting = settings.of(Number(row.user_id), Number(row.store_id))
    if (!setting || snoozed(setting, at) || !setting.quiet) continue
    const gap = await gapOf(db, store.id, since)
    if (!gap) continue
    alerts.push({
      userId: Number(row.user_id),
      storeId: Number(row.store_id),
      kind: 'quiet',
      episode: `${row.episode}${resumeSuffix}`,
      ...resumedAlert(store.name, gap.lastBefore, gap.firstAfter),
      tag: row.tag,
    })
  }
  return alerts
}
