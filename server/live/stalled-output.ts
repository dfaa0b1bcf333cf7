// Any answer of the server whose output stays queued, without a byte leaving, for `sendStallMs` loses its
// connection (decision 158): a client that stopped reading would otherwise pin what was queued for it.
import type http from 'node:http'
import type http2 from 'node:http2'

/** How long an answer's output may stay queued without a byte leaving before its connection is destroyed (decision 158). */
export const sendStallMs = 60_000

/** An answer being sent, HTTP/1.1 or HTTP/2. */
type RawAnswer = http.ServerResponse | http2.Http2ServerResponse

interface Watched {
  /** What was queued when last looked at, and where the connection's own queue stood. */
  mark: string
  since: number
}

/**
 * Destroys the connection (HTTP/1.1) or the stream (HTTP/2) of any answer whose output has stayed
 * queued, without a byte leaving, for `stallMs` (decision 158): a client that stopped reading would
 * otherwise pin what was queued for it for as long as it keeps the connection open. A slow reader that
 * takes something every minute is left alone. One timer for all answers, running while any is open.
 */
export function watchStalledOutput(stallMs = sendStallMs) {
  const watched = new Map<RawAnswer, Watched>()
  let timer: NodeJS.Timeout | null = null
  const tickMs = Math.max(10, Math.min(5_000, Math.floor(stallMs / 6)))

  /** The bytes still queued, and a token that changes whenever some of them left. */
  function state(answer: RawAnswer): { queued: number; mark: string } {
    if ('stream' in answer) {
      const stream = answer.stream
      return { queued: stream.writableLength, mark: `${stream.writableLength}` }
    }
    // libuv's queue of the connection (not typed: the handle is Node's own) shrinks as the kernel takes
    // bytes, even while one large write is still under way.
    const handle = (answer.socket as { _handle?: { writeQueueSize?: number } } | null)?._handle
    return { queued: answer.writableLength, mark: `${answer.writableLength}:${handle?.writeQueueSize ?? ''}` }
  }

  function destroy(answer: RawAnswer) {
    watched.delete(answer)
    if ('stream' in answer) answer.stream.destroy()
    else answer.socket?.destroy()
  }

  function look() {
    const now = Date.now()
    for (const [answer, seen] of watched) {
      const { queued, mark } = state(answer)
      if (queued === 0 || mark !== seen.mark) {
        seen.mark = mark
        seen.since = now
      } else if (now - seen.since >= stallMs) destroy(answer)
    }
    if (watched.size === 0 && timer) {
      clearInterval(timer)
      timer = null
    }
  }

  return {
    /** Watches an answer until it is done (its last byte taken) or its connection is gone. */
    watch(answer: RawAnswer) {
      if (watched.has(answer)) return
      watched.set(answer, { mark: '', since: Date.now() })
      answer.once('close', () => watched.delete(answer))
      answer.once('finish', () => watched.delete(answer))
      if (!timer) {
        timer = setInterval(look, tickMs)
        timer.unref()
      }
    },
    close() {
      if (timer) clearInterval(timer)
      timer = null
      watched.clear()
    },
  }
}
