// The alert rules (server/alerts/), every minute on every instance on their schedule
// (server/alerts/schedule.ts); the database decides what is sent (decision 102). They read the view of
// every store (stores-overview.ts): the hours the rules read, kept current. At close the schedule stops
// and an evaluation under way is awaited.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type AlertRules, createAlertRules } from '../alerts/evaluate.ts'
import type { MessageChannel } from '../alerts/message-outbox.ts'
import { alertSchedule } from '../alerts/schedule.ts'
import { kakaoKindsOf } from '../messages/config.ts'
import type { MessageTransport } from '../messages/transport.ts'

declare module 'fastify' {
  interface FastifyInstance {
    alertRules: AlertRules
    /**
     * After a heartbeat that confirmed an error or a terminal down, or brought failed payments: the
     * store's machine and terminal rules now, their alerts pushed after (decision 188). Never throws:
     * the heartbeat is kept whatever happens here, and the minute's evaluation runs them again.
     */
    alertsAfterHeartbeat: (storeId: number) => Promise<void>
  }
}

export interface AlertsOptions {
  /** How often the rules are evaluated; 0: never by itself (tests call it). */
  everyMs: number
  /** How a 알림톡 that failed is tried again (tests shorten it). */
  messageRetry?: MessageChannel['retry']
}

/** The 알림톡 channel of the configuration, when it has one; SOLAPI's SDK loaded at the first message. */
function messageChannel(app: FastifyInstance, retry: MessageChannel['retry']) {
  const { messages } = app.config
  const kakaoKinds = kakaoKindsOf(messages)
  const { solapi, kakao } = messages
  if (kakaoKinds.size === 0 || !solapi || !kakao) return undefined
  let transport: Promise<MessageTransport> | undefined
  return {
    transport: () => {
      transport ??= import('../messages/solapi.ts').then(({ solapiTransport }) =>
        solapiTransport({ ...solapi, pfId: kakao.pfId, baseUrl: messages.baseUrl }),
      )
      return transport
    },
    templates: kakao.templates,
    perUserPerDay: messages.perUserPerDay,
    log: app.log,
    kakaoKinds,
    ...(retry ? { retry } : {}),
  }
}

export const alertsPlugin = fp(
  async (app: FastifyInstance, { everyMs, messageRetry }: AlertsOptions) => {
    app.decorate(
      'alertRules',
      createAlertRules({
        db: app.db,
        push: app.push,
        log: app.log,
        views: app.storeViews,
        messages: messageChannel(app, messageRetry),
      }),
    )
    const alerts = alertSchedule({ rules: app.alertRules, everyMs, now: app.now, log: app.log })
    // The first evaluation at start, not a minute after it (decision 139): it loads the view of every
    // store the stores overview answers from, so the first overviews after a start are not each store's
    // years bucketed. Not awaited: at 10,000 stores the load takes seconds; answers fall back meanwhile.
    if (everyMs > 0) app.addHook('onReady', async () => alerts.tick())
    app.decorate('alertsAfterHeartbeat', async (storeId: number) => {
      try {
        if ((await app.alertRules.recordStore(storeId, app.now())) > 0) alerts.deliver()
      } catch (error) {
        app.log.error({ err: error, storeId }, 'alert rules after a heartbeat failed')
      }
    })
    app.addHook('onClose', async () => alerts.stop())
  },
  { name: 'alerts', dependencies: ['database', 'push', 'stores-overview'] },
)
