// A fake of the provider API at the network edge: `fetch` answers from handlers keyed by
// "METHOD /path", and every call is recorded. Unit tests only; end-to-end tests use the real server.
import { vi } from 'vitest'

export interface Call {
  method: string
  path: string
  search: URLSearchParams
  authorization: string | null
  ifNoneMatch: string | null
  accept: string | null
  body: unknown
}

type Handler = (call: Call) => Response | Promise<Response>

export const json = (status: number, body: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  })

export function fakeServer(handlers: Record<string, Handler>) {
  const calls: Call[] = []
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost:3000')
    const headers = new Headers(init.headers)
    const call: Call = {
      method: init.method ?? 'GET',
      path: url.pathname,
      search: url.searchParams,
      authorization: headers.get('authorization'),
      ifNoneMatch: headers.get('if-none-match'),
      accept: headers.get('accept'),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    }
    calls.push(call)
    const handler = handlers[`${call.method} ${call.path}`]
    if (!handler) return json(404, { message: '요청한 주소를 찾을 수 없습니다.' })
    // As a browser does: an aborted request rejects at once, whatever its answer would have been.
    const { signal } = init
    if (!signal) return handler(call)
    return new Promise<Response>((resolve, reject) => {
      const abort = () => reject(new DOMException('The operation was aborted.', 'AbortError'))
      if (signal.aborted) return abort()
      signal.addEventListener('abort', abort, { once: true })
      Promise.resolve(handler(call)).then(resolve, reject)
    })
  })
  vi.stubGlobal('fetch', fetch)
  return { calls, fetch, count: (key: string) => calls.filter((c) => `${c.method} ${c.path}` === key).length }
}

/** A network that is down: every request fails before any answer. */
export function offline() {
  const fetch = vi.fn(async () => {
    throw new TypeError('Failed to fetch')
  })
  vi.stubGlobal('fetch', fetch)
  return fetch
}
