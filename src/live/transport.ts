// The held call's transport and its retry, in one module (as Azure/fetch-event-source splits them from
// the framing, event-stream.ts): one held call through the app's fetch wrapper, asked as a stream
// (docs/product.md decision 133: each event of the open answer, or the one answer of a server that does
// not stream), and the one wait before asking again after a failure.
import { backoff, retryAfterMs } from '../../domain/backoff.ts'
import { type HttpError, request } from '../lib/api.ts'
import { eventStream } from './event-stream.ts'

/** How long the server may hold a call (seconds), and how long this side waits for its answer (ms). */
export const liveWait = 25
const answerWithinMs = 40_000

/** The wait after failed held calls in a row: doubling from 2 s up to 5 minutes. */
const afterFailure = { firstMs: 2000, maxMs: 300_000 }

/**
 * One held call: `take` gets each answer, the one answer of a server that does not stream or each
 * event of one that does (null for a comment: nothing new), and returns false to end it. Given up when
 * nothing comes in time (a line that dropped it silently), or when `signal` aborts.
 */
export async function askHeld<T>(
  path: string,
  signal: AbortSignal,
  take: (answer: T | null) => unknown,
): Promise<void> {
  const call = new AbortController()
  const stop = () => call.abort()
  let timer = 0
  const alive = () => {
    clearTimeout(timer)
    timer = setTimeout(stop, answerWithinMs)
  }
  alive()
  signal.addEventListener('abort', stop)
  try {
    // The bearer is all it needs: the cookies (the tokens again) would cost every held call 0.3 kB.
    const response = await request(path, {
      signal: call.signal,
      credentials: 'omit',
      accept: 'text/event-stream',
    })
    if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
      return void (await take((await response.json()) as T))
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const text = new TextDecoder()
    const events = eventStream()
    for (let read = 0; ; read++) {
      const { done, value } = await reader.read()
      // Our server's stream always says something first: one that ends having said nothing is a failure.
      if (done) return read ? undefined : Promise.reject(Error('empty stream'))
      alive()
      for (const data of events(text.decode(value, { stream: true })))
        if ((await take(JSON.parse(data ?? 'null'))) === false) return stop()
    }
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', stop)
  }
}

/**
 * Waits before asking again after `failures` failed calls in a row (the one backoff), never shorter
 * than the server's Retry-After (a refusal with 429 says when), or until `signal` aborts.
 */
export const pauseAfter = (error: unknown, failures: number, signal: AbortSignal) =>
  new Promise((resolve) => {
    setTimeout(
      resolve,
      backoff(failures, afterFailure, retryAfterMs((error as HttpError | undefined)?.retryAfter)),
    )
    signal.addEventListener('abort', resolve, { once: true })
  })
