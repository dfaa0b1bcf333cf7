// The alert rules (server/alerts/), every minute on every instance on their schedule
// (server/alerts/schedule.ts); the database decides what is sent (decision 102). They read the view of
// every store (stores-overview.ts): the hours the rules read, kept current. At close the schedule stops
// and an evaluation under way is awaited.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type AlertRules, createAlertRules } from '../alerts/evaluate.ts'
import { alertSchedule } from '../alerts/schedule.ts'

declare module 'fastify' {
  interface FastifyInstance {
    alertRules: AlertRules
  }
}

export interface AlertsOptions {
  /** How often the rules are evaluated; 0: never by itself (tests call it). */
  everyMs: number
}

export const alertsPlugin = fp(
  async (app: FastifyInstance, { everyMs }: AlertsOptions) => {
    app.decorate(
      'alertRules',
      createAlertRules({ db: app.db, push: app.push, log: app.log, views: app.storeViews }),
    )
    const alerts = alertSchedule({ rules: app.alertRules, everyMs, now: app.now, log: app.log })
    // The first evaluation at start, not a minute after it (decision 139): it loads the view of every
    // store the stores overview answers from, so the first overviews after a start are not each store's
    // years bucketed. Not awaited: at 10,000 stores the load takes seconds; answers fall back meanwhile.
    if (everyMs > 0) app.addHook('onReady', async () => alerts.tick())
    app.addHook('onClose', async () => alerts.stop())
  },
  { name: 'alerts', dependencies: ['database', 'push', 'stores-overview'] },
)
