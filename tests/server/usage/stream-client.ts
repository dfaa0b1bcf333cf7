// A test's reader of our event streams (docs/product.md decision 133), over real HTTP/1.1: keeps every
// event (`data:`) and comment as it arrives, with its time, and whether the stream has ended. One
// connection per stream (node:http without an agent), so that an abort ends it: fetch's pool may keep
// spare connections open, which would hold the server's close.
import http from 'node:http'

export interface Received {
  /** An event's data (parsed JSON), or null for a comment. */
  data: unknown
  at: number
}

export async function openStream(url: string, headers: Record<string, string>, signal?: AbortSignal) {
  const received: Received[] = []
  const state = { ended: false, endedAt: 0, error: null as unknown }
  let buffer = ''
  let finish: () => void = () => {}
  const done = new Promise<void>((resolve) => {
    finish = () => {
      state.ended = true
      state.endedAt = Date.now()
      resolve()
    }
  })
  const message = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = http.get(
      url,
      { agent: false, headers: { accept: 'text/event-stream', ...headers } },
      resolve,
    )
    request.on('error', reject)
    signal?.addEventListener('abort', () => request.destroy())
  })
  const type = String(message.headers['content-type'] ?? '')
  message.setEncoding('utf8')
  message.on('data', (chunk: string) => {
    if (!type.startsWith('text/event-stream')) return
    buffer += chunk
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      received.push({ data: block.startsWith('data: ') ? JSON.parse(block.slice(6)) : null, at: Date.now() })
    }
  })
  message.on('error', (error) => {
    state.error = error
    finish()
  })
  message.on('end', finish)
  message.on('close', finish)
  return {
    response: {
      status: message.statusCode ?? 0,
      headers: { get: (name: string) => (message.headers[name.toLowerCase()] as string | undefined) ?? null },
    },
    received,
    /** The events' data, comments left out. */
    events: () => received.filter((r) => r.data !== null).map((r) => r.data),
    comments: () => received.filter((r) => r.data === null),
    state,
    done,
    /** What was left unparsed at the end (must be nothing). */
    rest: () => buffer,
  }
}
