// Hands a usage answer's body to the bucketing worker as it streams and resolves with its buckets (and,
// for a version 2 compact answer, calls `onLeading` with the buckets of its leading sums as soon as they
// have arrived). Where a worker cannot run (an old browser, a test environment, a worker that failed to
// load), bucketing runs here instead, with the same code loaded on demand.

import type { Buckets } from '../figures/buckets.ts'
import type { BucketReply, BucketRequest } from './bucket.worker.ts'
import type { Fed } from './bucket-records.ts'

type Pending = { resolve(fed: Fed): void; reject(error: Error): void; onLeading(leading: Buckets): void }

let worker: Worker | null | undefined
let nextId = 1
const pending = new Map<number, Pending>()

function startWorker(): Worker | null {
  if (typeof Worker === 'undefined') return null
  try {
    const started = new Worker(new URL('./bucket.worker.ts', import.meta.url), {
      type: 'module',
      name: 'bucket',
    })
    started.onmessage = ({ data }: MessageEvent<BucketReply>) => {
      const request = pending.get(data.id)
      if (!request) return
      if ('leading' in data) return request.onLeading(data.leading)
      pending.delete(data.id)
      if ('buckets' in data) request.resolve(data)
      else request.reject(new Error(data.error))
    }
    started.onerror = (event) => {
      // The worker itself failed (it did not load, say): stop using it. What it held fails, and the
      // query's retry fetches again and buckets here.
      event.preventDefault()
      worker = null
      for (const [id, request] of pending) {
        pending.delete(id)
        request.reject(new Error(`bucketing worker failed: ${event.message}`))
      }
    }
    return started
  } catch {
    return null
  }
}

/** Reads a body here, handing each piece to `push` as it arrives. */
async function readHere(body: ReadableStream<Uint8Array> | null, push: (piece: Uint8Array) => void) {
  const reader = body?.getReader()
  for (;;) {
    const read = await reader?.read()
    if (!read || read.done) return
    push(read.value)
  }
}

/**
 * The buckets of a usage answer, JSON or compact as its Content-Type says, read as it streams: the body
 * goes to the worker (transferred; where a browser cannot transfer a stream, read here and posted piece
 * by piece). A body that fails partway rejects, after `onLeading` may have been called.
 */
export function bucketResponse(
  response: Response,
  year: number,
  onLeading: (leading: Buckets) => void,
): Promise<Fed> {
  if (worker === undefined) worker = startWorker()
  const contentType = response.headers.get('content-type')
  const body = response.body
  const target = worker
  if (!target)
    return import('./bucket-records.ts').then(async ({ usageFeed }) => {
      const feed = usageFeed(year, contentType, onLeading)
      await readHere(body, feed.push)
      return feed.end()
    })
  return new Promise((resolve, reject) => {
    const id = nextId++
    pending.set(id, { resolve, reject, onLeading })
    const post = (message: BucketRequest, transfer: Transferable[] = []) =>
      target.postMessage(message, transfer)
    try {
      post({ id, year, contentType, stream: body as ReadableStream<Uint8Array> }, [body as ReadableStream])
    } catch {
      // No body, or a browser that cannot transfer a stream: its pieces, read here.
      post({ id, year, contentType })
      readHere(body, (piece) => post({ id, piece }, [piece.buffer])).then(
        () => post({ id, end: true }),
        (error: unknown) => post({ id, error: String(error) }),
      )
    }
  })
}
