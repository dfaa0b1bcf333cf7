// Web Push and alerts (docs/product.md §12, docs/operations.md "Alerts and Web Push"): the server's
// public key, the caller's subscriptions, a test notification, the alert settings and the alerts list.
// Registered in the signed-in scope (bearer token); owner and staff alike, each for themselves.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AlertKind, StoreAlertSettings } from '../../contract/api.ts'
import {
  AlertSettingsAnswer,
  AlertSettingsRequest,
  AlertsAnswer,
  ErrorBody,
  PushKeyAnswer,
  PushSubscriptionRequest,
  PushTestAnswer,
  PushUnsubscribeRequest,
} from '../../contract/api.ts'
import { alertsOf, messageCountsOf } from '../alerts/list.ts'
import { quietAfterOf } from '../alerts/quiet.ts'
import { changeSettings, settingsOf } from '../alerts/settings.ts'
import { ApiError, messages } from '../errors.ts'
import { kakaoKindsOf } from '../messages/config.ts'
import { isAllowedEndpoint, isKeyOfLength, isP256Point } from '../push/endpoints.ts'
import { alertChoiceMark, removeSubscription, saveSubscription } from '../push/subscriptions.ts'
import { rateLimited, take } from '../rate-limit.ts'

/** The test notification: what it says, and how long a push service may keep it for an offline device. */
export const testNotification = {
  message: { title: '시험 알림', body: '이 기기로 빨래방 매출 알림이 옵니다.', tag: 'test' },
  options: { ttlSeconds: 600, urgency: 'normal' as const },
  /** How many a user may send: each is a send to every subscription of theirs. */
  limit: { limit: 5, windowMs: 10 * 60_000 },
}

export const pushRoutes: FastifyPluginAsyncTypebox = async (app) => {
  /** The kinds this server sends by 알림톡. */
  const kakaoKinds = kakaoKindsOf(app.config.messages)
  /** Each store's settings with what the alerts screen tells of its quiet alert, when the server can tell. */
  const withQuietAfter = (stores: StoreAlertSettings[]) =>
    stores.map((store) => {
      const quietAfter = quietAfterOf(app.storeViews, store.storeId, app.now().getTime())
      return quietAfter === undefined ? store : { ...store, quietAfter }
    })
  app.get(
    '/push/key',
    {
      schema: {
        summary:
          "The server's VAPID public key, for the browser's pushManager.subscribe(), and the caller's mark",
        response: { 200: PushKeyAnswer },
      },
    },
    async (request) => {
      const keys = await app.push.keys()
      return { key: keys.publicKey, mark: alertChoiceMark(keys, request.userId) }
    },
  )

  app.put(
    '/push/subscription',
    {
      schema: {
        summary: "Keep the browser's push subscription for this sign-in (send it on every start)",
        description:
          'The body is `PushSubscription.toJSON()`. The endpoint must be on a known push service (Google, Mozilla, Apple, Microsoft) or an origin of PUSH_ALLOWED_ORIGINS. The subscription belongs to the sign-in of the bearer token: ending the sign-in (logout, or any other end) removes it. The same endpoint sent under another sign-in moves to it.',
        body: PushSubscriptionRequest,
        response: { 204: Type.Null(), 400: ErrorBody },
      },
    },
    async (request, reply) => {
      const { endpoint, keys } = request.body
      if (!isAllowedEndpoint(endpoint, app.config.push.allowedOrigins))
        throw new ApiError(400, messages.pushEndpoint)
      if (!isKeyOfLength(keys.p256dh, 65, 4) || !isP256Point(keys.p256dh) || !isKeyOfLength(keys.auth, 16))
        throw new ApiError(400, messages.pushSubscription)
      await saveSubscription(
        app.db,
        { userId: request.userId, signInId: request.signInId },
        request.body,
        app.now(),
      )
      return reply.code(204).send(null)
    },
  )

  app.delete(
    '/push/subscription',
    {
      schema: {
        summary: "Forget one of the caller's push subscriptions (none is no error)",
        body: PushUnsubscribeRequest,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await removeSubscription(app.db, request.userId, request.body.endpoint)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/push/test',
    {
      schema: {
        summary:
          'Send a test notification to every subscription of the caller (all their signed-in browsers)',
        response: { 202: PushTestAnswer, 429: ErrorBody },
      },
    },
    async (request, reply) => {
      const now = app.now()
      const limit = {
        key: `push-test:${request.userId}`,
        ...testNotification.limit,
        message: messages.pushTestLimit,
      }
      const refusal = await app.db.transaction((tx) => take(tx, now, limit))
      if (refusal) throw rateLimited(refusal, now)
      const report = await app.push.sendToUser(
        request.userId,
        testNotification.message,
        testNotification.options,
      )
      return reply.code(202).send({ subscriptions: report.sent + report.deferred + report.failed })
    },
  )

  app.get(
    '/alerts/settings',
    {
      schema: {
        summary: "The caller's alert settings for each store they may see",
        response: { 200: AlertSettingsAnswer },
      },
    },
    async (request) => ({
      stores: withQuietAfter(await settingsOf(app.db, request.userId, app.now(), kakaoKinds)),
      kakaoKinds: [...kakaoKinds],
    }),
  )

  app.put(
    '/alerts/settings',
    {
      schema: {
        summary: "Change the caller's alert settings of one store; answers all of them",
        body: AlertSettingsRequest,
        response: { 200: AlertSettingsAnswer, 403: ErrorBody },
      },
    },
    async (request) => {
      const { storeId, quietHours } = request.body
      if (quietHours && quietHours.start === quietHours.end) throw new ApiError(400, messages.quietHours)
      if (!(await app.storeAccess.isMember(request.userId, storeId)))
        throw new ApiError(403, messages.alertStore)
      const { channels = {} } = request.body
      for (const [kind, channel] of Object.entries(channels))
        if ((channel === 'kakao' || channel === 'both') && !kakaoKinds.has(kind as AlertKind))
          throw new ApiError(400, messages.noKakao)
      await changeSettings(app.db, request.userId, request.body, app.now())
      return {
        stores: withQuietAfter(await settingsOf(app.db, request.userId, app.now(), kakaoKinds)),
        kakaoKinds: [...kakaoKinds],
      }
    },
  )

  app.get(
    '/alerts',
    {
      schema: {
        summary: "The caller's alerts of the last 30 days, sent and held, newest first (at most 100)",
        response: { 200: AlertsAnswer },
      },
    },
    async (request) => ({
      alerts: await alertsOf(app.db, request.userId, app.now()),
      messageCounts: await messageCountsOf(app.db, request.userId, app.now()),
    }),
  )
}
