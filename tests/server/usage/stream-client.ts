// A test's reader of our event streams (docs/product.md decision 133), over real HTTP: keeps every
// event (`data:`) and comment as it arrives, with its time, and whether the stream has ended.

export interface Received {
  /** An event's data (parsed JSON), or null for a comment. */
  data: unknown
  at: number
}

export async function openStream(url: string, headers: Record<string, string>, signal?: AbortSignal) {
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal })
  const received: Received[] = []
  const state = { ended: false, endedAt: 0, error: null as unknown }
  let buffer = ''
  const done = (async () => {
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return
    const decoder = new TextDecoder()
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          received.push({
            data: block.startsWith('data: ') ? JSON.parse(block.slice(6)) : null,
            at: Date.now(),
          })
        }
      }
    } catch (error) {
      state.error = error
    }
    state.ended = true
    state.endedAt = Date.now()
  })()
  return {
    response,
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
