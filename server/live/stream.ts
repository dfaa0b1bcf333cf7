// The streamed form of the held calls (docs/product.md decision 133): the same call paths and parameters,
// asked with `Accept: text/event-stream`. The answer stays open: each answer a held call would have
// given is one event `data: <the same JSON>\n\n`, sent as soon as the change commits, and a comment
// (`:\n\n`) goes out every 25 s when nothing else was sent (proxies' 30 s idle limit, decision 82). The
// server ends it when the sign-in ends, when the access token it was opened with expires, after a
// reset (the changes call) and when the server closes. @fastify/compress leaves text/event-stream
// alone (its default types exclude it), so each event leaves at once.
//
// A client that does not read (decisions 157–159): a stream stops writing and ends once its client has
// more than `streamQueueBytes` unsent, and any answer whose output has not moved for `sendStallMs` loses
// its connection (`watchStalledOutput` in stalled-output.ts, for every answer of the server).
import { PassThrough } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Woken } from './waiters.ts'

export { sendStallMs, watchStalledOutput } from './stalled-output.ts'

/** How often a stream with nothing to say sends a comment (decision 133); tests shorten it. */
export const streamHeartbeatMs = 25_000

/**
 * The bytes a stream may leave unsent (queued here, past what the kernel took) before it ends instead
 * of writing more (decision 157): the client asks again after the last revision it took.
 */
export const streamQueueBytes = 256 * 1024

/** Whether Accept names `text/event-stream` with a q above 0 (any case and spacing). */
export function wantsStream(accept: string | undefined) {
  return (accept ?? '').split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const q = params.find((param) => param.startsWith('q='))
    return type === 'text/event-stream' && (q === undefined || Number(q.slice(2)) > 0)
  })
}

/** What a stream waits on: the live waiter of its store-year(s). */
export interface StreamWaiter {
  next(ms: number): Promise<Woken>
  release(): void
}

/** What a stream sends after a wake: an answer's JSON, nothing (`null`), or that it ends (`last`). */
export interface StreamStep {
  data: string | null
  last?: boolean
}

export interface StreamOptions {
  waiter: StreamWaiter
  /** The first answer, read before the stream opened (so a refusal is the ordinary 4xx). */
  first: StreamStep
  /** After a change (or the heartbeat's turn, `timeout`), what to send. */
  step(woken: 'change' | 'timeout'): Promise<StreamStep>
  heartbeatMs: number
  /** The access token's expiry (ms on the app's clock) and the app's clock. */
  expiresAt: number
  now: () => Date
}

/**
 * Answers the request with an event stream and keeps it open until one of its ends (above); resolves
 * when it has ended. Written through Fastify (its hooks and its log line), as a stream of our own.
 */
export async function streamAnswers(request: FastifyRequest, reply: FastifyReply, options: StreamOptions) {
  const { waiter, step, heartbeatMs, expiresAt, now } = options
  const out = new PassThrough()
  let lastWrite = Date.now()
  // What waits to leave: in our stream (piped with backpressure) and in the answer and its connection.
  const queued = () => out.writableLength + out.readableLength + (reply.raw.writableLength ?? 0)
  /** Writes unless the client has more than the bound unsent; false then: the stream ends. */
  const write = (text: string) => {
    if (queued() > streamQueueBytes) return false
    out.write(text)
    lastWrite = Date.now()
    return true
  }
  // The token's end on the real clock: the app's clock may be a test's.
  const endsAt = Date.now() + (expiresAt - now().getTime())
  const gone = () => waiter.release()
  reply.raw.once('close', gone)
  reply
    .header('content-type', 'text/event-stream')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    // nginx and its kind buffer a proxied answer unless told not to.
    .header('x-accel-buffering', 'no')
    .send(out)
  // The first answer, or a comment: the headers leave at once either way.
  const { data, last } = options.first
  write(data === null ? ':\n\n' : `data: ${data}\n\n`)
  let woken: Woken = 'change'
  try {
    for (; !last; ) {
      const left = endsAt - Date.now()
      if (left <= 0 || now().getTime() >= expiresAt) break
      woken = await waiter.next(Math.min(lastWrite + heartbeatMs - Date.now(), left))
      if (woken !== 'change' && woken !== 'timeout') break
      if (woken === 'timeout' && (Date.now() >= endsAt || now().getTime() >= expiresAt)) break
      const { data, last } = await step(woken)
      if (data !== null) {
        if (!write(`data: ${data}\n\n`)) break
      } else if (Date.now() - lastWrite >= heartbeatMs - 5 && !write(':\n\n')) break
      if (last) break
    }
  } finally {
    reply.raw.off('close', gone)
    waiter.release()
    // Closing: an HTTP/1.1 connection kept alive would hold the server's close until its idle timeout
    // (HTTP/2 sessions are told to end at close: server/plugins/connections.ts).
    // A client that went away (aborted) may keep its connection: it is ended too.
    out.end()
    if (woken === 'aborted' && request.raw.httpVersionMajor === 1) request.raw.socket?.destroy()
    if (woken === 'closed' && request.raw.httpVersionMajor === 1)
      reply.raw.once('finish', () => request.raw.socket?.destroy())
  }
}
