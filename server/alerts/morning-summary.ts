// The morning summary: at 09:05 KST, one notification for all the user's stores with yesterday's sales
// against the usual weekday, the month so far against the month before, and the quiet episodes (the
// alerts recorded; for a store too small for a quiet push, the day's quiet spells from its hourly
// counts, domain/quiet.ts), computed with the app's figures. Not counted in the caps; held when it is quiet hours for every store it covers.
import { sql } from 'drizzle-orm'
import { type StoreSummary, summaryMessage } from '../../domain/alert-texts.ts'
import { type Buckets, emptyBuckets } from '../../domain/buckets.ts'
import { dayMs, startOfDay, yearOf } from '../../domain/calendar.ts'
import { monthBefore, monthComparison } from '../../domain/periods.ts'
import { QUIET_PUSH_SALES_PER_DAY, quietModel, quietSpellsOn } from '../../domain/quiet.ts'
import { storeHistory, todayComparison } from '../../domain/usual.ts'
import { type Db, queryRows } from '../db/client.ts'
import type { NewAlert } from './record.ts'
import { resumeSuffix } from './record.ts'
import { inQuietHours, type MemberSettings, snoozed } from './settings.ts'
import type { StoreRecord } from './store-state.ts'

/** The morning summary goes from this long after the app's day began (00:00 UTC = 09:00 KST): 09:05 KST. */
export const summaryAfterMs = 5 * 60_000
/** …until this long after it (12:00 KST): a server down all morning sends no summary that day (decision 105). */
export const summaryUntilMs = 3 * 60 * 60_000

/** Whether the summary is due at `at` (then it is of yesterday: the UTC day that ended). */
export const summaryDue = (at: number) =>
  at >= startOfDay(at) + summaryAfterMs && at < startOfDay(at) + summaryUntilMs

/** The morning summary of yesterday (`day`, the UTC day that just ended), computed with the app's figures. */
export function summaryFigures(current: Buckets, previous: Buckets, dayStart: number) {
  const end = new Date(dayStart + dayMs - 1)
  // Yesterday may be in last year (on 1 January): its year's buckets are then `previous`.
  const [held, before] =
    current.year === yearOf(end.getTime()) ? [current, previous] : [previous, emptyBuckets(previous.year - 1)]
  const today = todayComparison(held, before, end)
  const month = end.getUTCMonth() + 1
  const monthSoFar = monthComparison(held, month, monthBefore(held, before, month).buckets, end)
  return {
    sum: today?.sum ?? 0,
    count: today?.count ?? 0,
    usualSum: today?.usualSum ?? null,
    monthSum: monthSoFar.sum,
    previousMonthSum: monthSoFar.previousSum,
    usualCount: today?.usualCount ?? null,
    monthCount: monthSoFar.count,
    previousMonthCount: monthSoFar.previousCount,
  }
}

/** A store too small for a quiet push: its quiet spells of the UTC day `day`, from its hours; null for another store. */
export function smallStoreSpells(current: Buckets, previous: Buckets, day: number): number | null {
  const history = storeHistory(current, previous)
  const model = quietModel(history, day)
  if (!model || model.salesPerDay >= QUIET_PUSH_SALES_PER_DAY) return null
  return quietSpellsOn(history, day, model)
}

/** The users who have the day's summary already, and each store's quiet episodes of the day. */
async function dayRecord(db: Db, day: number, episode: string) {
  const done = await queryRows<{ user_id: number }>(
    db,
    sql`select user_id from alerts where kind = 'morningSummary' and store_id is null and episode = ${episode}`,
  )
  const quiet = await queryRows<{ store_id: number; n: string | number }>(
    db,
    sql`select store_id, count(distinct episode) as n from alerts
        where kind = 'quiet' and episode not like ${`%${resumeSuffix}`}
          and episode >= ${new Date(day).toISOString()} and episode < ${new Date(day + dayMs).toISOString()}
        group by store_id`,
  )
  return {
    done: new Set(done.map((row) => Number(row.user_id))),
    quietEpisodes: new Map(quiet.map((row) => [Number(row.store_id), Number(row.n)])),
  }
}

/** The summaries due at `now` that are not recorded yet, one a user who wants one, and whether each is held. */
export async function morningSummaries(
  db: Db,
  { stores, settings, now }: { stores: Map<number, StoreRecord>; settings: MemberSettings; now: Date },
): Promise<{ alert: NewAlert; held: boolean }[]> {
  const at = now.getTime()
  const day = startOfDay(at) - dayMs
  const episode = new Date(day).toISOString().slice(0, 10)
  const { done, quietEpisodes } = await dayRecord(db, day, episode)
  const storesOfUser = new Map<number, number[]>()
  for (const { userId, storeId } of settings.rows) {
    if (done.has(userId)) continue
    const setting = settings.of(userId, storeId)
    if (!setting?.morningSummary || snoozed(setting, at)) continue
    storesOfUser.set(userId, [...(storesOfUser.get(userId) ?? []), storeId])
  }
  const figures = new Map<number, StoreSummary>()
  const summaryOf = (store: StoreRecord) => {
    let summary = figures.get(store.id)
    if (!summary) {
      summary = {
        name: store.name,
        ...summaryFigures(...store.buckets(), day),
        quietEpisodes: smallStoreSpells(...store.buckets(), day) ?? quietEpisodes.get(store.id) ?? 0,
      }
      figures.set(store.id, summary)
    }
    return summary
  }
  const due: { alert: NewAlert; held: boolean }[] = []
  for (const [userId, storeIds] of storesOfUser) {
    /** The stores it names (decision 155). */
    const named = storeIds.flatMap((storeId) => stores.get(storeId) ?? [])
    if (named.length === 0) continue
    // A store whose won amounts the owner hides from the member: its counts only (docs/product.md §15).
    const money = (store: StoreRecord) => settings.of(userId, store.id)?.seesMoney === true
    const lines = named.map((store) => ({ ...summaryOf(store), money: money(store) }))
    due.push({
      alert: {
        userId,
        storeId: null,
        storeIds: named.map((store) => store.id),
        moneyStoreIds: named.filter(money).map((store) => store.id),
        kind: 'morningSummary',
        episode,
        ...summaryMessage(day, lines),
        tag: `summary:${episode}`,
      },
      // Held when it is quiet hours for every store it covers.
      held: storeIds.every((storeId) => {
        const setting = settings.of(userId, storeId)
        return setting ? inQuietHours(setting.hours, now) : false
      }),
    })
  }
  return due
}
