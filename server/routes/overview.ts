// GET /api/v0/stores/overview: every store of the caller at once, as the app's stores overview shows
// it, computed by the server with the app's own rules (server/usage/overview.ts, docs/product.md
// decisions 97–99). The stores are the caller's memberships, as in the profile and every store call.
// With `after` (the `rev` the client shows) and `wait`, the call is held until the figures would differ
// (decision 110): a change of any of the caller's store-years wakes it (server/live/), and the
// figures are computed again then and when the wait ends (the clock moves them too).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorBody, StoresOverviewQuery, StoresOverviewReply } from '../../contract/api.ts'
import { ApiError, messages } from '../errors.ts'
import { answerHeld } from '../live/held.ts'
import { clockEvent, type OverviewSent, overviewEvent } from '../usage/overview-event.ts'

export const overviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stores/overview',
    {
      schema: {
        summary: 'Every store of the caller: today, the usual, the month, the last sale, quiet, devices',
        description:
          "For each store the caller is a member of (the profile's order): today (the UTC day) so far against the usual " +
          '(the same weekday of the previous 4 weeks up to the same time), the month so far against the month before up to ' +
          'the same elapsed time, the last sale of the year, the quiet-store rule, and its paired devices with those not heard ' +
          "from in 3 heartbeats; computed with the web app's own figures code, at the instant `at`. " +
          'A store whose won amounts the owner hides from the caller (staff, docs/product.md §15) has no `sum` anywhere, its counts only. ' +
          '`rev` is a token of the figures: with `after` set to it, the answer is `{at, rev, unchanged: true}` while they are the same; ' +
          'with `wait` (seconds, at most 25; needs `after`) the call is held until a sale or any change of the figures, answered at once when `after` is not the current `rev`. ' +
          'A held call ends with 401 when its sign-in ends. With `after`, never cached (Cache-Control: no-store). ' +
          'Asked with `Accept: text/event-stream` and a `wait`, the answer is a stream (`text/event-stream`): each changed overview is one event `data: <its JSON>` ' +
          '(the figures are read again after each change and every 25 s; unchanged, a comment is sent instead); the server ends it when the sign-in ends, when the access token it was opened with expires, and when it closes. ' +
          'With `stores=changed`, each event after the first carries only the stores whose figures changed, with `after`, the `rev` of the event before. ' +
          'One sign-in holds at most 8 calls and streams at once on a server, each counted until its connection has taken its last byte (or is gone): another is refused with 429 (Retry-After 5). ' +
          'A stream whose client leaves more than 256 kB unsent is ended (the client asks again with its `rev`).',
        querystring: StoresOverviewQuery,
        response: {
          200: StoresOverviewReply,
          400: ErrorBody,
          401: ErrorBody,
          429: ErrorBody,
        },
      },
      // A held call every 25 s: a page's security headers would be most of its bytes (as the changes call).
      helmet: false,
    },
    async (request, reply) => {
      const { after, wait = 0 } = request.query
      if (wait > 0 && after === undefined) throw new ApiError(400, messages.overviewWait)
      reply.header('x-content-type-options', 'nosniff')
      const first = await app.storesOverview.read(request.userId, app.now())
      if (after === undefined) return first.answer
      reply.header('cache-control', 'no-store')
      type Read = typeof first
      const unchanged = ({ answer }: Read) => ({ at: answer.at, rev: answer.rev, unchanged: true as const })
      if (wait === 0) return first.answer.rev !== after ? first.answer : unchanged(first)
      // The stream's store-years: another set (a store added or gone, a new year) ends it, and the client asks again.
      const key = ({ years }: Read) => years.map(({ storeId, year }) => `${storeId}:${year}`).join()
      const held = key(first)
      // What the client shows once it has taken what was sent (decision 151).
      const sent: OverviewSent = {
        token: after,
        shown: new Map(first.answer.stores.map(({ id }, at) => [id, first.shown[at] as string])),
      }
      // The app moves the rows with the clock itself (decision 237): only what moved otherwise is sent.
      const clock = request.query.stores === 'changed' && request.query.clock === 1
      if (clock) sent.parts = null
      const answered = await answerHeld<Read, StoresOverviewReply>(
        { live: app.live, heartbeatMs: app.streamHeartbeatMs, now: app.now },
        request,
        reply,
        {
          wait,
          keys: first.years,
          first,
          read: () => app.storesOverview.read(request.userId, app.now()),
          revisions: ({ years }) => years,
          news: ({ answer }) => (answer.rev !== after ? answer : undefined),
          nothingNew: unchanged,
          // The clock moves the figures too: the end of a wait (or a stream's heartbeat) reads them again.
          readOnTimeout: true,
          event(read, first) {
            const last = key(read) !== held
            const changedOnly = request.query.stores === 'changed' && !first && !last
            const data = clock ? clockEvent(sent, read, first, last) : overviewEvent(sent, read, changedOnly)
            return { data: data && String(reply.serialize(data)), last }
          },
        },
      )
      return answered === null ? reply : answered
    },
  )
}
