// GET /api/v0/store/:id/usage/changes?year=Y&after=REV&wait=S: the changes of a store's UTC year since
// a revision, held up to `wait` seconds while there are none (docs/operations.md, "Live changes").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ChangesAnswer, ChangesQuery, ErrorBody, UsageParams } from '../../contract/api.ts'
import { ApiError, messages } from '../errors.ts'
import { answerHeld } from '../live/held.ts'
import { countedAnswerBytes, fullRetryAfterSeconds } from '../live/occupancy.ts'
import { type ChangesRead, changesJson, readChanges } from '../usage/changes.ts'

export const changesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/store/:id/usage/changes',
    {
      schema: {
        summary: "The changes of a store's usage records in one UTC year since a revision (members only)",
        description:
          "Our server's addition for live screens. `after` is the revision the client has (the `Usage-Revision` header of the usage answer, or the `rev` of the last changes answer; 0 for none: the year's records come as puts). " +
          "The answer lists the changes with a higher revision, in revision order, with the year's `count` and `sum` after them (the client's checksum), " +
          'or `{rev, reset: true}` when they are not kept (older than 3 days, the year was rewritten by a large statement, or `after` is above the revision): the client fetches the year again. ' +
          'With `wait` (seconds, at most 25) the call is held while nothing changed after `after`, answered as soon as something does, and at the end with no changes. ' +
          'A held call ends with 401 when its sign-in ends. Never cached (Cache-Control: no-store). ' +
          'Asked with `Accept: text/event-stream` and a `wait`, the answer is a stream (`text/event-stream`): each answer a held call would give is one event `data: <its JSON>`, ' +
          'sent as soon as the change commits, with a comment every 25 s when nothing else was sent; the server ends it when the sign-in ends, when the access token it was opened with expires, after a reset, and when it closes. ' +
          'The client then asks again with the last `rev`. Refusals (400, 401, 403) are the same JSON answers as without the stream. ' +
          'One sign-in holds at most 8 calls and streams at once on a server, each counted until its connection has taken its last byte (or is gone), and so does an answer of more than 64 kB (the year as puts): another is refused with 429 (Retry-After 5). ' +
          'A stream whose client leaves more than 256 kB unsent is ended (the client asks again after its last `rev`).',
        params: UsageParams,
        querystring: ChangesQuery,
        response: { 200: ChangesAnswer, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      },
      // An open screen asks every 25 s: a page's security headers (the policy alone is 330 bytes) mean
      // nothing on a JSON answer and would be most of its bytes. Only nosniff stays (below).
      helmet: false,
    },
    async (request, reply) => {
      const { id } = request.params
      const { year, wait = 0 } = request.query
      let { after } = request.query
      const read = () => readChanges(app.db, request.userId, id, year, after)
      // A member the owner hides won amounts from is told so (the app then reads its profile again, §15).
      const refused = (read: { hidden: boolean }) =>
        new ApiError(403, read.hidden ? messages.moneyHidden : messages.forbidden)
      const member = (read: ChangesRead) => {
        if (!read.member) throw refused(read)
        return read
      }
      let body: string
      if (wait > 0) {
        const held = await answerHeld(
          { live: app.live, heartbeatMs: app.streamHeartbeatMs, now: app.now },
          request,
          reply,
          {
            wait,
            keys: [{ storeId: id, year }],
            read,
            revisions: (read) => (read.member ? [{ storeId: id, year, revision: read.revision }] : []),
            news: (read) => {
              const kept = member(read)
              return kept.reset || kept.revision !== after ? changesJson(kept) : undefined
            },
            nothingNew: (read) => changesJson(member(read)),
            readOnTimeout: false,
            event(read, first) {
              // Membership gone: the stream ends, and asking again is refused (403).
              if (!read.member) {
                if (first) throw refused(read)
                return { data: null, last: true }
              }
              const data = read.reset || read.revision !== after ? changesJson(read) : null
              after = read.revision
              return { data, last: read.reset }
            },
          },
        )
        if (held === null) return reply
        body = held
      } else {
        body = changesJson(member(await read()))
        // The year as puts (after=0) of a year with records, built for each call: counted while it is sent.
        if (body.length > countedAnswerBytes && !app.live.occupy(request.signInId, reply.raw))
          throw new ApiError(429, messages.tooManyHeld, fullRetryAfterSeconds)
      }
      // Built as text (the changes come from the database as JSON); Fastify sends a string as it is.
      return reply
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .type('application/json')
        .send(body as unknown as ChangesAnswer)
    },
  )
}
