// Hands a usage answer's body to the bucketing worker as it streams and resolves with its buckets (and,
// for a version 2 compact answer, calls `onLeading` with the buckets of its leading sums as soon as they
// have arrived). Where a worker cannot run (an old browser, a test environment, a worker that failed to
// load), bucketing runs here instead, with the same code loaded on demand.

import type { Buckets } from '../figures/buckets.ts'
import type { BucketReply, BucketRequest } from './bucket.worker.ts'

type Pending = {
  resolve(buckets: Buckets): void
  reject(error: Error): void
  onLeading(leading: Buckets): void
}

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
      if ('buckets' in data) request.resolve(data.buckets)
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

/**
 * The buckets of a usage answer, JSON or compact as its Content-Type says, read as it streams: this
 * thread reads the body (a transferred stream is not in every browser) and posts each piece to the
 * worker as it arrives. A body that fails partway rejects, after `onLeading` may have been called.
 */
export async function bucketResponse(
  response: Response,
  year: number,
  onLeading: (leading: Buckets) => void,
): Promise<Buckets> {
  if (worker === undefined) worker = startWorker()
  const contentType = response.headers.get('content-type')
  const reader = response.body?.getReader()
  const target = worker
  const feed = target
    ? workerFeed(target, year, contentType, onLeading)
    : { ...(await import('./bucket-records.ts')).usageFeed(year, contentType, onLeading), drop() {} }
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array> | undefined
    try {
      read = await reader?.read()
    } catch (error) {
      feed.drop()
      throw error
    }
    if (!read || read.done) return feed.end()
    feed.push(read.value)
  }
}

/** A feed whose bucketing runs in the worker. */
function workerFeed(
  target: Worker,
  year: number,
  contentType: string | null,
  onLeading: Pending['onLeading'],
) {
  const id = nextId++
  const whole = new Promise<Buckets>((resolve, reject) => pending.set(id, { resolve, reject, onLeading }))
  // Handled where `end` returns it; a failure before then is the worker's, reported again by `end`.
  whole.catch(() => {})
  const post = (message: BucketRequest, transfer: Transferable[] = []) =>
    target.postMessage(message, transfer)
  post({ id, year, contentType })
  const close = (end: boolean) => post({ id, end })
  return {
    push: (piece: Uint8Array) => post({ id, piece }, [piece.buffer]),
    end: () => {
      close(true)
      return whole
    },
    drop: () => {
      pending.delete(id)
      close(false)
    },
  }
}
