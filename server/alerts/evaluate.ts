// The minute's evaluation of the alert rules (docs/product.md §12 and decisions 102–109), on every
// instance: each store's state goes through the rules (quiet.ts, device-offline.ts, equipment.ts,
// machine-silent.ts), each candidate to every member who wants it (settings.ts) and is recorded once
// within the caps (record.ts); then the replacements when sales resume (resumed.ts), devices are back
// (device-return.ts), a machine or terminal works again (cleared.ts) or a silent machine sells
// (machine-resumed.ts), the morning summary (morning-summary.ts), and the held
// alerts whose quiet hours are over (held.ts). What is recorded is pushed after, from the outbox
// (outbox.ts): `evaluate` records then delivers; the schedule (schedule.ts) runs the two apart. After a
// heartbeat that confirms an error or a terminal down, or brings failed payments, the instance that took
// it runs the machine and terminal rules of that store at once (`recordStore`, decision 188).
import { sql } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import { type Db, queryRows } from '../db/client.ts'
import type { Push } from '../push/deliver.ts'
import { type StoreViews, storeViews } from '../stores/view.ts'
import { type KakaoKinds, routesOf } from './channels.ts'
import { clearedAlerts, openEquipmentAlerts } from './cleared.ts'
import { deviceCandidates } from './device-offline.ts'
import { openOutageAlerts, returnedAlerts } from './device-return.ts'
import { equipmentCandidates } from './equipment.ts'
import { equipmentByStore, noEquipment } from './equipment-state.ts'
import { releasableHeld } from './held.ts'
import { machineResumedAlerts, openMachineAlerts } from './machine-resumed.ts'
import { machineSilentRule } from './machine-silent.ts'
import { deliverMessages, type MessageChannel } from './message-outbox.ts'
import { morningSummaries, summaryDue } from './morning-summary.ts'
import { deliverAlerts } from './outbox.ts'
import { quietCandidates } from './quiet.ts'
import { type NewAlert, recordCounted, recordedAlready, recordOnce, releaseHeld } from './record.ts'
import { openQuietAlerts, resumedAlerts } from './resumed.ts'
import { inQuietHours, MemberSettings, memberSettings, snoozed, storeMemberSettings } from './settings.ts'
import { type Candidate, devicesByStore, eachStore } from './store-state.ts'

export interface EvaluationReport {
  stores: number
  /** Alerts recorded, by state. */
  sent: number
  held: number
  /** Alerts not recorded because the user's caps of the day were reached. */
  capped: number
  resumed: number
  /** Held alerts released (and in how many pushes, when delivered). */
  released: number
  releasePushes: number
  summaries: number
  /** How long the evaluation took (recording, not delivery), ms. */
  ms: number
}

const emptyReport = (): EvaluationReport => ({
  stores: 0,
  sent: 0,
  held: 0,
  capped: 0,
  resumed: 0,
  released: 0,
  releasePushes: 0,
  summaries: 0,
  ms: 0,
})

/**
 * The alert with the channels its person chose for its kind (decision 230): of its store; a summary by
 * each channel one of the stores it covers (with the summary on) chose.
 */
function routed(alert: NewAlert, settings: MemberSettings, kakaoKinds: KakaoKinds): NewAlert {
  const chosen =
    alert.storeId === null
      ? settings.ofUser(alert.userId).filter((setting) => setting[alert.kind])
      : [settings.of(alert.userId, alert.storeId) ?? []].flat()
  if (chosen.length === 0) return alert
  const routes = chosen.map((setting) => routesOf(setting, alert.kind, kakaoKinds))
  return {
    ...alert,
    routes: { push: routes.some((route) => route.push), kakao: routes.some((route) => route.kakao) },
  }
}

/** Each candidate for every member who wants it now, recorded once (within the caps), held in quiet hours. */
async function recordCandidates(
  db: Db,
  {
    candidates,
    settings,
    now,
    report,
    kakaoKinds,
  }: {
    candidates: Candidate[]
    settings: MemberSettings
    now: Date
    report: EvaluationReport
    kakaoKinds: KakaoKinds
  },
) {
  // What is recorded already is read in one query, so an episode that lasts costs no transaction a minute.
  const recorded = await recordedAlready(db, candidates)
  for (const candidate of candidates) {
    for (const userId of settings.membersOf(candidate.storeId)) {
      if (recorded.has(`${userId}|${candidate.storeId}|${candidate.kind}|${candidate.episode}`)) continue
      const setting = settings.of(userId, candidate.storeId)
      if (!setting || snoozed(setting, now.getTime()) || !setting[candidate.kind]) continue
      // An outage: once it lasted the member's own minutes (decision 180).
      if (
        candidate.offlineSince !== undefined &&
        now.getTime() - candidate.offlineSince < setting.deviceOfflineMinutes * 60_000
      )
        continue
      const alert = routed({ ...candidate, userId }, settings, kakaoKinds)
      const outcome = await recordCounted(db, alert, inQuietHours(setting.hours, now), now)
      if (outcome !== 'exists') report[outcome]++
    }
  }
}

export function createAlertRules({
  db,
  push,
  log,
  views = storeViews(db),
  messages,
}: {
  db: Db
  push: Push
  log?: FastifyBaseLogger
  /** The instance's view of every store, shared with the stores overview (decision 138). */
  views?: StoreViews
  /** The 알림톡 channel, when the server has one: its transport and the kinds it can send. */
  messages?: (MessageChannel & { kakaoKinds: KakaoKinds }) | undefined
}) {
  const machineSilent = machineSilentRule(db)
  const kakaoKinds: KakaoKinds = messages?.kakaoKinds ?? new Set()
  const once = (alert: NewAlert, settings: MemberSettings, held: boolean, now: Date) =>
    recordOnce(db, routed(alert, settings, kakaoKinds), held, now)
  /** Runs the rules at `now` and records what is due; pushes nothing. */
  async function record(now: Date): Promise<EvaluationReport> {
    const started = performance.now()
    const at = now.getTime()
    const report = emptyReport()
    const candidates: Candidate[] = []
    await machineSilent.load(at)
    const stores = await eachStore(db, views, at, (store) => {
      candidates.push(
        ...quietCandidates(store, now),
        ...deviceCandidates(store, at),
        ...equipmentCandidates(store, at),
      )
      machineSilent.visit(store, at)
    })
    candidates.push(...(await machineSilent.candidates(now)))
    report.stores = stores.size
    const open = await openQuietAlerts(db, at)
    const openOutages = await openOutageAlerts(db, stores, at)
    const openEquipment = await openEquipmentAlerts(db, at)
    const openMachines = await openMachineAlerts(db, at)
    const summary = summaryDue(at)
    // Members and their settings, when there is something to say or an alert to replace.
    const settings =
      candidates.length > 0 ||
      open.length > 0 ||
      openOutages.length > 0 ||
      openEquipment.length > 0 ||
      openMachines.length > 0 ||
      summary
        ? await memberSettings(db)
        : new MemberSettings()

    await recordCandidates(db, { candidates, settings, now, report, kakaoKinds })
    for (const alert of await resumedAlerts(db, { open, stores, settings, at }))
      if (await once(alert, settings, false, now)) report.resumed++
    for (const alert of await returnedAlerts(db, { open: openOutages, stores, settings, at }))
      if (await once(alert, settings, false, now)) report.resumed++
    for (const alert of await clearedAlerts(db, { open: openEquipment, settings, at }))
      if (await once(alert, settings, false, now)) report.resumed++
    const lastSaleOf = machineSilent.lastSaleOf
    for (const alert of await machineResumedAlerts(db, {
      open: openMachines,
      stores,
      settings,
      at,
      lastSaleOf,
    }))
      if (await once(alert, settings, false, now)) report.resumed++
    if (summary)
      for (const { alert, held } of await morningSummaries(db, { stores, settings, now }))
        if (await once(alert, settings, held, now)) report.summaries++
    const stillTrue = new Set(candidates.map((c) => `${c.storeId}|${c.kind}|${c.episode}`))
    const ready = await releasableHeld(db, { settings, stillTrue, now })
    if (ready.length > 0) report.released = (await releaseHeld(db, ready, now)).length

    report.ms = performance.now() - started
    if (report.sent + report.held + report.resumed + report.released + report.summaries > 0)
      log?.info({ alerts: report }, 'alerts evaluated')
    return report
  }

  /**
   * The machine and terminal rules of one store at `now`, recorded as the minute's evaluation would
   * (the same keys: of this and any instance's evaluation one records); pushes nothing. Answers how
   * many alerts it recorded.
   */
  async function recordStore(storeId: number, now: Date) {
    const at = now.getTime()
    const [store] = await queryRows<{ name: string }>(db, sql`select name from stores where id = ${storeId}`)
    if (!store) return 0
    const candidates = equipmentCandidates(
      {
        id: storeId,
        name: store.name,
        devices: (await devicesByStore(db, storeId)).get(storeId) ?? [],
        equipment: (await equipmentByStore(db, at, storeId)).get(storeId) ?? noEquipment,
      },
      at,
    )
    if (candidates.length === 0) return 0
    const report = emptyReport()
    const settings = await storeMemberSettings(db, storeId)
    await recordCandidates(db, { candidates, settings, now, report, kakaoKinds })
    return report.sent + report.held
  }

  /** Pushes what the outbox holds, then sends the 알림톡 waiting. */
  async function deliver(now: Date) {
    const pushed = await deliverAlerts(db, push, now)
    const sent = messages ? await deliverMessages(db, messages, now) : undefined
    return { ...pushed, messages: sent }
  }

  /** Records what is due at `now`, then pushes it (what the tests and a single call want). */
  async function evaluate(now: Date): Promise<EvaluationReport> {
    const report = await record(now)
    report.releasePushes = (await deliver(now)).releasePushes
    return report
  }

  return { evaluate, record, recordStore, deliver }
}

export type AlertRules = ReturnType<typeof createAlertRules>
