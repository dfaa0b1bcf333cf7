// The minute's evaluation of the alert rules (docs/product.md §12 and decisions 102–109), on every
// instance: each store's state goes through the rules (quiet.ts, device-offline.ts), each candidate to
// every member who wants it (settings.ts) and is recorded once within the caps (record.ts); then the
// replacements when sales resume (resumed.ts), the morning summary (morning-summary.ts), and the held
// alerts whose quiet hours are over (held.ts). What is recorded is pushed after, from the outbox
// (outbox.ts): `evaluate` records then delivers; the schedule (schedule.ts) runs the two apart.
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/client.ts'
import type { Push } from '../push/deliver.ts'
import { type StoreViews, storeViews } from '../stores/view.ts'
import { deviceCandidates } from './device-offline.ts'
import { releasableHeld } from './held.ts'
import { morningSummaries, summaryDue } from './morning-summary.ts'
import { deliverAlerts } from './outbox.ts'
import { quietCandidates } from './quiet.ts'
import { recordCounted, recordedAlready, recordOnce, releaseHeld } from './record.ts'
import { openQuietAlerts, resumedAlerts } from './resumed.ts'
import { inQuietHours, MemberSettings, memberSettings, snoozed } from './settings.ts'
import { type Candidate, eachStore } from './store-state.ts'

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

/** Each candidate for every member who wants it now, recorded once (within the caps), held in quiet hours. */
async function recordCandidates(
  db: Db,
  {
    candidates,
    settings,
    now,
    report,
  }: {
    candidates: Candidate[]
    settings: MemberSettings
    now: Date
    report: EvaluationReport
  },
) {
  // What is recorded already is read in one query, so an episode that lasts costs no transaction a minute.
  const recorded = await recordedAlready(db, candidates)
  for (const candidate of candidates) {
    for (const userId of settings.membersOf(candidate.storeId)) {
      if (recorded.has(`${userId}|${candidate.storeId}|${candidate.kind}|${candidate.episode}`)) continue
      const setting = settings.of(userId, candidate.storeId)
      if (!setting || snoozed(setting, now.getTime()) || !setting[candidate.kind]) continue
      const outcome = await recordCounted(db, { ...candidate, userId }, inQuietHours(setting.hours, now), now)
      if (outcome !== 'exists') report[outcome]++
    }
  }
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
  /** Runs the rules at `now` and records what is due; pushes nothing. */
  async function record(now: Date): Promise<EvaluationReport> {
    const started = performance.now()
    const at = now.getTime()
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
    const candidates: Candidate[] = []
    const stores = await eachStore(db, views, at, (store) => {
      candidates.push(...quietCandidates(store, now), ...deviceCandidates(store, at))
    })
    report.stores = stores.size
    const open = await openQuietAlerts(db, at)
    const summary = summaryDue(at)
    // Members and their settings, when there is something to say or a quiet alert to replace.
    const settings =
      candidates.length > 0 || open.length > 0 || summary ? await memberSettings(db) : new MemberSettings()

    await recordCandidates(db, { candidates, settings, now, report })
    for (const alert of await resumedAlerts(db, { open, stores, settings, at }))
      if (await recordOnce(db, alert, false, now)) report.resumed++
    if (summary)
      for (const { alert, held } of await morningSummaries(db, { stores, settings, now }))
        if (await recordOnce(db, alert, held, now)) report.summaries++
    const stillTrue = new Set(candidates.map((c) => `${c.storeId}|${c.kind}|${c.episode}`))
    const ready = await releasableHeld(db, { settings, stillTrue, now })
    if (ready.length > 0) report.released = (await releaseHeld(db, ready, now)).length

    report.ms = performance.now() - started
    if (report.sent + report.held + report.resumed + report.released + report.summaries > 0)
      log?.info({ alerts: report }, 'alerts evaluated')
    return report
  }

  /** Pushes what the outbox holds. */
  const deliver = (now: Date) => deliverAlerts(db, push, now)

  /** Records what is due at `now`, then pushes it (what the tests and a single call want). */
  async function evaluate(now: Date): Promise<EvaluationReport> {
    const report = await record(now)
    report.releasePushes = (await deliver(now)).releasePushes
    return report
  }

  return { evaluate, record, deliver }
}

export type AlertRules = ReturnType<typeof createAlertRules>
