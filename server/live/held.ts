// One handler for every held call (the changes call and the stores overview call), in both its forms:
// the JSON answer, held up to `wait` seconds while there is nothing new, and the event stream
// (`Accept: text/event-stream`, decision 133: each answer the held call would give is one event). Each
// call says what it follows, how to read, and what a read means in each form; this file owns the rest:
// the per-sign-in bound (429), holding before reading again so a commit in between still wakes the
// call, the end of a sign-in (401), the server's close, and a client that went away.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, messages } from '../errors.ts'
import type { Live } from './live.ts'
import { fullRetryAfterSeconds } from './occupancy.ts'
import { type StreamStep, streamAnswers, wantsStream } from './stream.ts'
import type { StoreYear } from './waiters.ts'

/** What the server gives every held call. */
export interface HeldContext {
  live: Live
  /** How often a stream with nothing to say sends a comment. */
  heartbeatMs: number
  now: () => Date
}

export interface HeldCall<Read, Answer> {
  /** How long the JSON form may be held, in seconds (above 0). */
  wait: number
  /** The store-years the call follows: a change of any of them wakes it. */
  keys: StoreYear[]
  /**
   * A read made before the call was held (the overview's, which names the store-years): the stream's
   * first event; the JSON form answers it at once when it is news, else reads again once held.
   */
  first?: Read
  /** Reads what the call answers from now. */
  read(): Promise<Read>
  /** The revision of each followed store-year a read answered up to: a change above it wakes the call. */
  revisions(read: Read): (StoreYear & { revision: number })[]
  /** The JSON form's answer when a read is news to the client; undefined: it waits. A refusal throws. */
  news(read: Read): Answer | undefined
  /** The JSON form's answer when the wait ended with nothing new (or the server closes). */
  nothingNew(read: Read): Answer
  /** Whether the end of a wait, or a stream's heartbeat, reads again: the clock alone moves the figures. */
  readOnTimeout: boolean
  /** The stream's event for a read (`first`: before the stream opened, where a refusal still throws). */
  event(read: Read, first: boolean): StreamStep
}

/**
 * Answers a held call: the answer to send (JSON form), or null when it was streamed (the reply is then
 * sent). Refused with 429 when the sign-in already holds as many answers as it may.
 */
export async function answerHeld<Read, Answer>(
  { live, heartbeatMs, now }: HeldContext,
  request: FastifyRequest,
  reply: FastifyReply,
  call: HeldCall<Read, Answer>,
): Promise<Answer | null> {
  const deadline = Date.now() + call.wait * 1000
  // Counted until the connection has taken the answer, not only while it waits (decision 159).
  if (!live.occupy(request.signInId, reply.raw))
    throw new ApiError(429, messages.tooManyHeld, fullRetryAfterSeconds)
  const stream = wantsStream(request.headers.accept)
  if (!stream && call.first !== undefined) {
    const news = call.news(call.first)
    if (news !== undefined) return news
  }
  // Held before reading again, so a commit between that read and the wait still wakes the call.
  const waiter = live.hold(call.keys, request.signInId)
  const follow = (read: Read) => {
    for (const { storeId, year, revision } of call.revisions(read)) waiter.setAfter(storeId, year, revision)
  }
  const disconnected = () => waiter.release()
  reply.raw.once('close', disconnected)
  try {
    let read = call.first ?? (await call.read())
    if (stream) {
      // Refused as the held call is (the first event is built before the stream opens), then every answer an event.
      const first = call.event(read, true)
      follow(read)
      reply.raw.off('close', disconnected)
      await streamAnswers(request, reply, {
        waiter,
        first,
        async step(woken) {
          // The heartbeat's turn reads nothing unless the clock moves the answer: a change wakes the stream itself.
          if (woken === 'timeout' && !call.readOnTimeout) return { data: null }
          read = await call.read()
          follow(read)
          return call.event(read, false)
        },
        heartbeatMs,
        expiresAt: request.accessExpiresAt,
        now,
      })
      return null
    }
    for (;;) {
      const news = call.news(read)
      if (news !== undefined) return news
      follow(read)
      if (Date.now() >= deadline) return call.nothingNew(read)
      const woken = await waiter.next(deadline - Date.now())
      if (woken === 'ended') throw new ApiError(401, messages.sessionExpired)
      // Closing answers what was last read (on a connection that then closes, as every answer sent
      // while closing: server/plugins/connections.ts); a client that went away gets nothing.
      if (woken !== 'change' && !(woken === 'timeout' && call.readOnTimeout)) return call.nothingNew(read)
      read = await call.read()
    }
  } finally {
    reply.raw.off('close', disconnected)
    waiter.release()
  }
}
