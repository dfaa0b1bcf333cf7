// The alert rules (issue 24 part 2, docs/product.md §12 and decisions 102–109): a store gone quiet, a
// store's devices offline, the morning summary; each user's settings per store (kinds, quiet hours,
// snooze), the caps, the held alerts pushed when quiet hours end. Evaluated every minute on every
// instance (server/app.ts); the database decides what is sent, never this process's memory:
//
// - an alert is a row whose key (user, store, kind, episode) is unique; it is recorded in a transaction
//   holding the user's advisory lock, which counts the day's alerts against the caps first, and only the
//   instance whose insert returned the row pushes it (after the commit);
// - a held alert is pushed by the instance whose conditional update (`state = 'held'` → `'sent'`) got it;
// - the quiet rule is the app's own (domain/quiet.ts), run on the server's view of every store
//   (server/alerts/view.ts, decision 131): the hours the rules read, loaded in bulk, brought up to the
//   changes log each minute.
import { sql } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import type { AlertKind } from '../../contract/api.ts'
import { type Buckets, emptyBuckets } from '../../domain/buckets.ts'
import { dayMs, startOfDay, yearOf } from '../../domain/calendar.ts'
import { offlineAfterMs } from '../../domain/devices.ts'
import { monthBefore, monthComparison } from '../../domain/periods.ts'
import { type QuietStore, quietStoreOf, quietStoreText } from '../../domain/quiet.ts'
import { todayComparison } from '../../domain/usual.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'
import type { NewAlert } from '../push/alerts.ts'
import type { Push, SendOptions } from '../push/deliver.ts'
import { defaultQuietHours, inQuietHours } from '../push/settings.ts'
import { type StoreViews, storeViews } from './view.ts'

/** At most this many alerts a store and a day, and in all a day (the morning summary not counted). */
export const caps = { store: 3, all: 6 }
/** The morning summary goes from this long after the app's day began (00:00 UTC = 09:00 KST): 09:05 KST. */
export const summaryAfterMs = 5 * 60_000
/** …until this long after it (12:00 KST): a server down all morning sends no summary that day (decision 105). */
export const summaryUntilMs = 3 * 60 * 60_000
/** Held alerts older than this are not pushed any more (they stay in the list). */
export const heldForMs = 24 * 60 * 60_000
/** A device alone (others of its store still heard) is reported one heartbeat after it counts as offline, so
 * that devices dropping together within a heartbeat make one store alert (decision 104). */
export const singleDeviceGraceMs = 60_000

const alertOptions: SendOptions = { ttlSeconds: 4 * 60 * 60, urgency: 'high' }
const summaryOptions: SendOptions = { ttlSeconds: 6 * 60 * 60, urgency: 'normal' }
const resumeSuffix = '/resume'

const koreaClock = new Intl.DateTimeFormat('ko-KR', {
  timeZone: 'Asia/Seoul',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
})
/** `HH:mm` in Korea time. */
export const koreaTime = (at: number) => koreaClock.format(at)
const number = new Intl.NumberFormat('ko-KR', { maximumFractionDigits: 0 })
const won = (amount: number) => `${number.format(amount)}원`
const dayKey = (at: number) => new Date(at).toISOString().slice(0, 10)

/** `다시 판매 시작 · 15:40 (3시간 20분 무판매)` */
export function resumeText(since: number, resumedAt: number) {
  const minutes = Math.max(0, Math.floor((resumedAt - since) / 60_000))
  return `다시 판매 시작 · ${koreaTime(resumedAt)} (${Math.floor(minutes / 60)}시간 ${minutes % 60}분 무판매)`
}

/** `평소보다 8% 많음`, `평소와 같음`, `지난달과 같음`; null without a usual. */
function against(value: number, usual: number | null, word: '평소' | '지난달') {
  if (usual === null || usual === 0) return null
  const percent = Math.round(((value - usual) / usual) * 100)
  if (percent === 0) return `${word}${word === '평소' ? '와' : '과'} 같음`
  return `${word}보다 ${Math.abs(percent)}% ${percent > 0 ? '많음' : '적음'}`
}

export interface StoreSummary {
  name: string
  sum: number
  count: number
  usualSum: number | null
  monthSum: number
  previousMonthSum: number | null
  quietEpisodes: number
}

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
  }
}

/** The morning summary's notification: one for all the user's stores. */
export function summaryMessage(day: number, stores: StoreSummary[]) {
  const date = new Date(day)
  const lines = stores.map((store) => {
    const parts = [
      `${store.name} ${won(store.sum)} ${number.format(store.count)}건${(() => {
        const text = against(store.sum, store.usualSum, '평소')
        return text ? ` (${text})` : ''
      })()}`,
    ]
    const month = against(store.monthSum, store.previousMonthSum, '지난달')
    parts.push(`이번 달 ${won(store.monthSum)}${month ? ` (${month})` : ''}`)
    if (store.quietEpisodes > 0) parts.push(`판매 없음 ${store.quietEpisodes}번`)
    return parts.join(' · ')
  })
  const shown = lines.slice(0, 8)
  if (lines.length > shown.length) shown.push(`외 ${lines.length - shown.length}곳`)
  return {
    title: `어제 매출 · ${date.getUTCMonth() + 1}월 ${date.getUTCDate()}일 · 매장 ${stores.length}곳`,
    body: shown.join('\n'),
  }
}

export interface DeviceState {
  id: number
  storeId: number
  name: string
  /** The last heartbeat (or the pairing, when none yet). */
  seenAt: number
}

export interface DeviceAlert {
  storeId: number
  episode: string
  body: string
  /** When the outage began: the latest heartbeat of the devices it is about. */
  since: number
}

/**
 * The device alerts of one store at `now`: one for the store when every paired device is offline (the
 * episode: the latest of their heartbeats, which stays put while they all are), else one per device
 * offline for a heartbeat longer than the offline rule (its episode: its own last heartbeat).
 */
export function deviceAlerts(storeId: number, devices: DeviceState[], now: number): DeviceAlert[] {
  if (devices.length === 0) return []
  const offline = devices.filter((device) => device.seenAt < now - offlineAfterMs)
  if (offline.length === devices.length) {
    const since = Math.max(...devices.map((device) => device.seenAt))
    return [
      {
        storeId,
        episode: `store:${new Date(since).toISOString()}`,
        since,
        body:
          devices.length === 1
            ? `‘${devices[0]?.name}’가 ${koreaTime(since)}부터 응답하지 않습니다.`
            : `단말기 ${devices.length}대 모두 ${koreaTime(since)}부터 응답하지 않습니다.`,
      },
    ]
  }
  return offline
    .filter((device) => device.seenAt < now - offlineAfterMs - singleDeviceGraceMs)
    .map((device) => ({
      storeId,
      episode: `device:${device.id}:${new Date(device.seenAt).toISOString()}`,
      since: device.seenAt,
      body: `‘${device.name}’가 ${koreaTime(device.seenAt)}부터 응답하지 않습니다.`,
    }))
}

interface Setting {
  quiet: boolean
  deviceOffline: boolean
  morningSummary: boolean
  hours: { start: number; end: number } | null
  snoozedUntil: number | null
}

const settingOf = (row: {
  quiet: boolean | null
  device_offline: boolean | null
  morning_summary: boolean | null
  quiet_start: number | null
  quiet_end: number | null
  snoozed_until: Date | string | null
  has_row: boolean
}): Setting => ({
  quiet: row.quiet ?? true,
  deviceOffline: row.device_offline ?? true,
  morningSummary: row.morning_summary ?? true,
  hours: !row.has_row
    ? defaultQuietHours
    : row.quiet_start === null || row.quiet_end === null
      ? null
      : { start: Number(row.quiet_start), end: Number(row.quiet_end) },
  snoozedUntil: row.snoozed_until === null ? null : new Date(row.snoozed_until).getTime(),
})

export interface EvaluationReport {
  stores: number
  /** Alerts recorded, by state. */
  sent: number
  held: number
  /** Alerts not recorded because the user's caps of the day were reached. */
  capped: number
  resumed: number
  /** Held alerts pushed (in how many pushes). */
  released: number
  releasePushes: number
  summaries: number
  /** How long the evaluation took, ms. */
  ms: number
}

type Candidate = Omit<NewAlert, 'userId' | 'storeId'> & {
  storeId: number
  kind: Exclude<AlertKind, 'morningSummary'>
}

export function createAlertRules({
  db,
  push,
  log,
  views = storeViews(db),
}: {
  db: Db
  push: Push
  log?: FastifyBaseLogger
  /** The instance's view of every store, shared with the stores overview (decision 138). */
  views?: StoreViews
}) {
  /**
   * Records an alert of a store under the user's lock, after counting the day's alerts against the
   * caps; 'exists' when it was recorded before (by any instance), 'capped' when over a cap (not recorded).
   */
  async function record(alert: NewAlert, held: boolean, at: Date) {
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
      await tx.execute(
        sql`insert into alerts (user_id, store_id, kind, episode, title, body, tag, state, created_at, sent_at)
            values (${alert.userId}, ${alert.storeId}, ${alert.kind}, ${alert.episode}, ${alert.title},
              ${alert.body}, ${alert.tag}, ${held ? 'held' : 'sent'}, ${at.toISOString()}::timestamptz,
              ${held ? null : at.toISOString()}::timestamptz)`,
      )
      return held ? ('held' as const) : ('sent' as const)
    })
  }

  /** Records an alert that is not counted (a resume, a summary) once; true when this call recorded it. */
  async function recordOnce(alert: NewAlert, held: boolean, at: Date) {
    const storeIds = alert.storeIds ? intArray(alert.storeIds) : null
    const rows = await queryRows<{ id: number }>(
      db,
      sql`insert into alerts (user_id, store_id, store_ids, kind, episode, title, body, tag, state, created_at, sent_at)
          values (${alert.userId}, ${alert.storeId}, ${storeIds}::int[], ${alert.kind}, ${alert.episode}, ${alert.title},
            ${alert.body}, ${alert.tag}, ${held ? 'held' : 'sent'}, ${at.toISOString()}::timestamptz,
            ${held ? null : at.toISOString()}::timestamptz)
          on conflict do nothing returning id`,
    )
    return rows.length > 0
  }

  /**
   * The gap a quiet episode (begun at `since`) was in: the store's last sale at or before `since` (the
   * episode's `since` is 00:00 UTC when that sale was the day before) and its first sale after it (not
   * its latest: several may have come since the last evaluation). Read only when sales resumed.
   */
  async function gapOf(storeId: number, since: number) {
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

  const pushAlert = (alert: NewAlert, options: SendOptions) =>
    push.sendToUser(
      alert.userId,
      {
        title: alert.title,
        body: alert.body,
        tag: alert.tag,
        ...(alert.storeId ? { store: alert.storeId } : {}),
      },
      options,
    )

  async function evaluate(now: Date): Promise<EvaluationReport> {
    const started = performance.now()
    const at = now.getTime()
    const year = yearOf(at)
    const report: EvaluationReport = {
      stores: 0,
      sent: 0,
      held: 0,
      capped: 0,
      resumed: 0,
      released: 0,
      releasePushes: 0,
      summaries: 0,
      ms: 0,
    }

    // Every store with members, its two years' revisions; every paired device's last heartbeat.
    const storeRows = await queryRows<{
      id: number
      name: string
      version: string | number
      previous_version: string | number
    }>(
      db,
      sql`select s.id, s.name, coalesce(cy.version, 0) as version, coalesce(py.version, 0) as previous_version
          from stores s
          left join usage_years cy on cy.store_id = s.id and cy.year = ${year}
          left join usage_years py on py.store_id = s.id and py.year = ${year - 1}
          where exists (select 1 from memberships m where m.store_id = s.id)
          order by s.id`,
    )
    const deviceRows = await queryRows<{
      id: number
      store_id: number
      name: string
      seen_at: Date | string
    }>(
      db,
      sql`select id, store_id, name, coalesce(last_seen_at, paired_at) as seen_at from devices
          where paired_at is not null and revoked_at is null`,
    )
    const devicesOf = new Map<number, DeviceState[]>()
    for (const row of deviceRows) {
      const list = devicesOf.get(Number(row.store_id)) ?? []
      list.push({
        id: Number(row.id),
        storeId: Number(row.store_id),
        name: row.name,
        seenAt: new Date(row.seen_at).getTime(),
      })
      devicesOf.set(Number(row.store_id), list)
    }

    interface StoreState {
      id: number
      name: string
      buckets: () => [Buckets, Buckets]
      lastSaleAt: number | null
      quiet: QuietStore | null
      deviceAlerts: DeviceAlert[]
    }
    // The view of every store (decision 131): loaded in bulk when there is none, when it does not cover
    // now or lacks a store; else brought up to the changes log.
    const storeView = await views.upToDate(
      at,
      storeRows.map((row) => Number(row.id)),
    )
    const states = new Map<number, StoreState>()
    for (const row of storeRows) {
      const id = Number(row.id)
      const [current, previous] = storeView.bucketsOf(id, at)
      const devices = devicesOf.get(id) ?? []
      const offline = devices.some((device) => device.seenAt < at - offlineAfterMs)
      states.set(id, {
        id,
        name: row.name,
        // The view's buckets are scratch: valid until its next bucketsOf.
        buckets: () => storeView.bucketsOf(id, at),
        lastSaleAt: current.lastSaleAt ?? previous.lastSaleAt,
        // No quiet alert while a device of the store is offline: its sales cannot arrive, and the
        // device alert says it (decision 104).
        quiet: offline ? null : quietStoreOf(current, previous, now, true),
        deviceAlerts: deviceAlerts(id, devices, at),
      })
    }
    report.stores = states.size

    const candidates: Candidate[] = []
    for (const store of states.values()) {
      if (store.quiet)
        candidates.push({
          storeId: store.id,
          kind: 'quiet',
          episode: new Date(store.quiet.since).toISOString(),
          title: `${store.name} · 판매 없음`,
          body: quietStoreText(store.quiet),
          tag: `quiet:${store.id}:${new Date(store.quiet.since).toISOString()}`,
        })
      for (const device of store.deviceAlerts)
        candidates.push({
          storeId: store.id,
          kind: 'deviceOffline',
          episode: device.episode,
          title: `${store.name} · 단말기 연결 끊김`,
          body: device.body,
          tag: `device:${store.id}:${device.episode}`,
        })
    }
    const stillTrue = new Set(candidates.map((c) => `${c.storeId}|${c.kind}|${c.episode}`))

    // The quiet alerts pushed whose stores may have sold again since (step 2).
    const open = await queryRows<{
      user_id: number
      store_id: number
      episode: string
      tag: string
      title: string
    }>(
      db,
      sql`select a.user_id, a.store_id, a.episode, a.tag, a.title from alerts a
          where a.kind = 'quiet' and a.state = 'sent' and a.created_at > ${new Date(at - 2 * dayMs).toISOString()}::timestamptz
            and a.episode not like ${`%${resumeSuffix}`}
            and not exists (select 1 from alerts r where r.user_id = a.user_id and r.store_id = a.store_id
              and r.kind = 'quiet' and r.episode = a.episode || ${resumeSuffix})`,
    )
    // Members and their settings, for the stores with something to say or a quiet alert to replace (all
    // of them for the summary).
    const summaryDay = startOfDay(at) - dayMs
    const summaryDue = at >= startOfDay(at) + summaryAfterMs && at < startOfDay(at) + summaryUntilMs
    const wanted = new Set(candidates.map((c) => c.storeId))
    const settingRows =
      wanted.size > 0 || open.length > 0 || summaryDue
        ? await queryRows<Parameters<typeof settingOf>[0] & { user_id: number; store_id: number }>(
            db,
            sql`select m.user_id, m.store_id, a.quiet, a.device_offline, a.morning_summary, a.quiet_start,
                  a.quiet_end, a.snoozed_until, (a.user_id is not null) as has_row
                from memberships m
                left join alert_settings a on a.user_id = m.user_id and a.store_id = m.store_id
                order by m.user_id, m.store_id`,
          )
        : []
    const settings = new Map<string, Setting>()
    const membersOf = new Map<number, number[]>()
    for (const row of settingRows) {
      settings.set(`${row.user_id}|${row.store_id}`, settingOf(row))
      const list = membersOf.get(Number(row.store_id)) ?? []
      list.push(Number(row.user_id))
      membersOf.set(Number(row.store_id), list)
    }
    const settingFor = (userId: number, storeId: number) => settings.get(`${userId}|${storeId}`)
    const snoozed = (setting: Setting) => setting.snoozedUntil !== null && setting.snoozedUntil > at

    // 1. New alerts: once per (user, store, kind, episode), within the caps, held in quiet hours. What
    // is recorded already is read in one query, so an episode that lasts costs no transaction a minute.
    const recorded = new Set(
      candidates.length === 0
        ? []
        : (
            await queryRows<{ user_id: number; store_id: number; kind: string; episode: string }>(
              db,
              // One JSON parameter joined, never a list of row constructors: PGlite hung on such a list
              // of 250 rows or more the second time it ran (docs/upstream/pglite-row-constructor-hang.md).
              sql`select a.user_id, a.store_id, a.kind, a.episode
                  from jsonb_to_recordset(${JSON.stringify(
                    candidates.map((c) => ({ store_id: c.storeId, kind: c.kind, episode: c.episode })),
                  )}::jsonb) as c(store_id int, kind text, episode text)
                  join alerts a on a.store_id = c.store_id and a.kind = c.kind and a.episode = c.episode`,
            )
          ).map((row) => `${row.user_id}|${row.store_id}|${row.kind}|${row.episode}`),
    )
    for (const candidate of candidates) {
      for (const userId of membersOf.get(candidate.storeId) ?? []) {
        if (recorded.has(`${userId}|${candidate.storeId}|${candidate.kind}|${candidate.episode}`)) continue
        const setting = settingFor(userId, candidate.storeId)
        if (!setting || snoozed(setting) || !setting[candidate.kind]) continue
        const alert: NewAlert = { ...candidate, userId }
        const held = inQuietHours(setting.hours, now)
        const outcome = await record(alert, held, now)
        if (outcome === 'capped') report.capped++
        else if (outcome === 'held') report.held++
        else if (outcome === 'sent') {
          report.sent++
          await pushAlert(alert, alertOptions)
        }
      }
    }

    // 2. Sales resumed after a quiet alert that was pushed: the same tag, replaced once (the alerts are
    // read above, with the settings).
    for (const row of open) {
      const store = states.get(Number(row.store_id))
      const since = Date.parse(row.episode)
      if (!store || store.lastSaleAt === null || store.lastSaleAt <= since) continue
      // Only to a member still, who wants this store's quiet alerts now (not snoozed, not turned off).
      const setting = settingFor(Number(row.user_id), Number(row.store_id))
      if (!setting || snoozed(setting) || !setting.quiet) continue
      const gap = await gapOf(store.id, since)
      if (!gap) continue
      const alert: NewAlert = {
        userId: Number(row.user_id),
        storeId: Number(row.store_id),
        kind: 'quiet',
        episode: `${row.episode}${resumeSuffix}`,
        title: `${store.name} · 판매 재개`,
        body: resumeText(gap.lastBefore, gap.firstAfter),
        tag: row.tag,
      }
      // A replacement, not a second buzz: sent in quiet hours too, not counted in the caps.
      if (await recordOnce(alert, false, now)) {
        report.resumed++
        await pushAlert(alert, alertOptions)
      }
    }

    // 3. The morning summary: one for all the user's stores, at 09:05 KST, not counted in the caps.
    if (summaryDue) {
      const episode = dayKey(summaryDay)
      const done = new Set(
        (
          await queryRows<{ user_id: number }>(
            db,
            sql`select user_id from alerts where kind = 'morningSummary' and store_id is null and episode = ${episode}`,
          )
        ).map((row) => Number(row.user_id)),
      )
      const quietEpisodes = new Map(
        (
          await queryRows<{ store_id: number; n: string | number }>(
            db,
            sql`select store_id, count(distinct episode) as n from alerts
                where kind = 'quiet' and episode not like ${`%${resumeSuffix}`}
                  and episode >= ${new Date(summaryDay).toISOString()} and episode < ${new Date(summaryDay + dayMs).toISOString()}
                group by store_id`,
          )
        ).map((row) => [Number(row.store_id), Number(row.n)]),
      )
      const storesOfUser = new Map<number, number[]>()
      for (const row of settingRows) {
        const userId = Number(row.user_id)
        if (done.has(userId)) continue
        const setting = settingFor(userId, Number(row.store_id))
        if (!setting?.morningSummary || snoozed(setting)) continue
        const list = storesOfUser.get(userId) ?? []
        list.push(Number(row.store_id))
        storesOfUser.set(userId, list)
      }
      const figures = new Map<number, StoreSummary>()
      for (const [userId, storeIds] of storesOfUser) {
        const summaries: StoreSummary[] = []
        /** The stores it names (decision 155). */
        const named: number[] = []
        for (const storeId of storeIds) {
          const store = states.get(storeId)
          if (!store) continue
          named.push(storeId)
          let summary = figures.get(storeId)
          if (!summary) {
            summary = {
              name: store.name,
              ...summaryFigures(...store.buckets(), summaryDay),
              quietEpisodes: quietEpisodes.get(storeId) ?? 0,
            }
            figures.set(storeId, summary)
          }
          summaries.push(summary)
        }
        if (summaries.length === 0) continue
        const message = summaryMessage(summaryDay, summaries)
        // Held when it is quiet hours for every store it covers.
        const held = storeIds.every((storeId) => {
          const setting = settingFor(userId, storeId)
          return setting ? inQuietHours(setting.hours, now) : false
        })
        const alert: NewAlert = {
          userId,
          storeId: null,
          storeIds: named,
          kind: 'morningSummary',
          episode,
          ...message,
          tag: `summary:${episode}`,
        }
        if (await recordOnce(alert, held, now)) {
          report.summaries++
          if (!held) await pushAlert(alert, summaryOptions)
        }
      }
    }

    // 4. Held alerts whose quiet hours are over and that are still true: one push a user, then.
    const heldRows = await queryRows<{
      id: number
      user_id: number
      store_id: number | null
      store_ids: number[] | null
      kind: AlertKind
      episode: string
      title: string
      body: string
      tag: string
    }>(
      db,
      sql`select id, user_id, store_id, store_ids, kind, episode, title, body, tag from alerts
          where state = 'held' and created_at > ${new Date(at - heldForMs).toISOString()}::timestamptz
          order by user_id, created_at, store_id, kind, id`,
    )
    if (heldRows.length > 0 && settingRows.length === 0) {
      // The settings were not read above (nothing new to say): read them for the held alerts' users.
      const rows = await queryRows<Parameters<typeof settingOf>[0] & { user_id: number; store_id: number }>(
        db,
        sql`select m.user_id, m.store_id, a.quiet, a.device_offline, a.morning_summary, a.quiet_start,
              a.quiet_end, a.snoozed_until, (a.user_id is not null) as has_row
            from memberships m
            left join alert_settings a on a.user_id = m.user_id and a.store_id = m.store_id
            where m.user_id in (select distinct user_id from alerts where state = 'held')`,
      )
      for (const row of rows) settings.set(`${row.user_id}|${row.store_id}`, settingOf(row))
    }
    const releasable = new Map<number, typeof heldRows>()
    for (const row of heldRows) {
      const userId = Number(row.user_id)
      let ready: boolean
      if (row.store_id === null) {
        // The summary: out of quiet hours for one of the user's stores at least, and only while the user
        // still sees every store it names (decision 155; the settings are the user's memberships).
        const own = [...settings.entries()].filter(([key]) => key.startsWith(`${userId}|`))
        ready =
          own.some(([, setting]) => !inQuietHours(setting.hours, now)) &&
          (row.store_ids ?? []).every((storeId) => settings.has(`${userId}|${storeId}`))
      } else {
        const setting = settingFor(userId, Number(row.store_id))
        ready =
          !!setting &&
          !inQuietHours(setting.hours, now) &&
          !snoozed(setting) &&
          stillTrue.has(`${row.store_id}|${row.kind}|${row.episode}`)
      }
      if (!ready) continue
      const list = releasable.get(userId) ?? []
      list.push(row)
      releasable.set(userId, list)
    }
    for (const [userId, rows] of releasable) {
      // Whichever instance's update takes the rows pushes them.
      const taken = await queryRows<{ id: number }>(
        db,
        sql`update alerts set state = 'sent', sent_at = ${now.toISOString()}::timestamptz
            where state = 'held' and id = any(${intArray(rows.map((row) => Number(row.id)))}::bigint[]) returning id`,
      )
      const ids = new Set(taken.map((row) => Number(row.id)))
      const mine = rows.filter((row) => ids.has(Number(row.id)))
      const [first] = mine
      if (!first) continue
      report.released += mine.length
      report.releasePushes++
      await push.sendToUser(
        userId,
        mine.length === 1
          ? {
              title: first.title,
              body: first.body,
              tag: first.tag,
              ...(first.store_id ? { store: Number(first.store_id) } : {}),
            }
          : {
              title: `방해 금지 시간 동안의 알림 ${mine.length}개`,
              body: mine.map((row) => row.title).join('\n'),
              tag: `held:${dayKey(at)}`,
            },
        alertOptions,
      )
    }

    report.ms = performance.now() - started
    if (report.sent + report.held + report.resumed + report.released + report.summaries > 0)
      log?.info({ alerts: report }, 'alerts evaluated')
    return report
  }

  return { evaluate }
}

export type AlertRules = ReturnType<typeof createAlertRules>
