// GET /api/v0/store/:id/usage/changes?year=Y&after=REV&wait=S: the changes of a store's UTC year since
// a revision, held up to `wait` seconds while there are none (docs/operations.md, "Live changes").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ChangesAnswer, ChangesQuery, ErrorBody, UsageParams } from '../../contract/api.ts'
import { ApiError, messages } from '../errors.ts'
import { type ChangesRead, changesJson, readChanges } from '../usage/changes.ts'
import { countedAnswerBytes } from '../usage/live.ts'
import { streamAnswers, wantsStream } from '../usage/stream.ts'

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
      const deadline = Date.now() + wait * 1000
      // Held calls and streams count against the sign-in's bound until their connection has taken them
      // (decision 159); so does a large answer (below).
      if (wait > 0 && !app.live.occupy(request.signInId, reply.raw))
        throw new ApiError(429, messages.tooManyHeld, 5)
      // Held before the first read, so a commit between the read and the wait still wakes the call.
      const waiter = wait > 0 ? app.live.hold(id, year, request.signInId) : null
      const disconnected = () => waiter?.release()
      if (waiter) reply.raw.once('close', disconnected)
      try {
        let read: ChangesRead = await readChanges(app.db, request.userId, id, year, after)
        if (waiter && wantsStream(request.headers.accept)) {
          // The stream (decision 133): refused as the held call is, then every answer an event.
          if (!read.member) throw new ApiError(403, messages.forbidden)
          let last = read
          const event = (read: ChangesRead & { member: true }) => {
            waiter.after = read.rev
            last = read
            return { data: read.reset || read.rev !== after ? changesJson(read) : null, last: read.reset }
          }
          reply.raw.off('close', disconnected)
          await streamAnswers(request, reply, {
            waiter,
            first: event(read),
            async step(woken) {
              // The heartbeat's turn reads nothing: a change wakes the stream itself.
              if (woken === 'timeout') return { data: null }
              after = last.rev
              const next = await readChanges(app.db, request.userId, id, year, after)
              // Membership gone: the stream ends, and asking again is refused (403).
              return next.member ? event(next) : { data: null, last: true }
            },
            heartbeatMs: app.streamHeartbeatMs,
            expiresAt: request.accessExpiresAt,
            now: app.now,
          })
          return reply
        }
        for (;;) {
          if (!read.member) throw new ApiError(403, messages.forbidden)
          if (!waiter || read.reset || read.rev !== after) break
          waiter.after = read.rev
          const woken = await waiter.next(deadline - Date.now())
          if (woken === 'ended') throw new ApiError(401, messages.sessionExpired)
          // Closing answers what was last read (on a connection that then closes, as every answer
          // sent while closing: server/plugins/connections.ts); a client that went away gets nothing.
          if (woken !== 'change') break
          read = await readChanges(app.db, request.userId, id, year, after)
        }
        // Built as text (the changes come from the database as JSON); Fastify sends a string as it is.
        const body = changesJson(read)
        // The year as puts (after=0) of a year with records, built for each call: counted while it is sent.
        if (!waiter && body.length > countedAnswerBytes && !app.live.occupy(request.signInId, reply.raw))
          throw new ApiError(429, messages.tooManyHeld, 5)
        return reply
          .header('cache-control', 'no-store')
          .header('x-content-type-options', 'nosniff')
          .type('application/json')
          .send(body as unknown as ChangesAnswer)
      } finally {
        if (waiter) {
          reply.raw.off('close', disconnected)
          waiter.release()
        }
      }
    },
  )
}
