// Hands a usage answer's body to the bucketing worker as it streams and resolves with its buckets (and,
// for a version 2 compact answer, calls `onLeading` with the buckets of its leading sums as soon as they
// have arrived). Where a worker cannot run (an old browser, a test environment, a worker that failed to
// load), bucketing runs here instead, with the same code and messages, loaded on demand.

import type { Buckets } from '../../domain/buckets.ts'
import type { BucketReply, BucketRequest } from './bucket-feed.ts'

type Pending = {
  resolve(buckets: Buckets): void
  reject(error: Error): void
  onLeading(leading: Buckets): void
}

let worker: Worker | null | undefined
let nextId = 1
const pending = new Map<number, Pending>()

function receive(data: BucketReply) {
  const request = pending.get(data.id)
  if (!request) return
  if ('leading' in data) return request.onLeading(data.leading)
  pending.delete(data.id)
  if ('buckets' in data) request.resolve(data.buckets)
  else request.reject(new Error(data.error))
}

function startWorker(): Worker | null {
  if (typeof Worker === 'undefined') return null
  try {
    const started = new Worker(new URL('./bucket.worker.ts', import.meta.url), {
      type: 'module',
      name: 'bucket',
    })
    started.onmessage = ({ data }: MessageEvent<BucketReply>) => receive(data)
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
 * worker as it arrives (or, with no worker, hands it to the same bucketing here). A body that fails
 * partway rejects, after `onLeading` may have been called.
 */
export async function bucketResponse(
  response: Response,
  year: number,
  onLeading: (leading: Buckets) => void,
): Promise<Buckets> {
  if (worker === undefined) worker = startWorker()
  const target = worker
  const post: (message: BucketRequest, transfer?: Transferable[]) => void = target
    ? (message, transfer = []) => target.postMessage(message, transfer)
    : (await import('./bucket-feed.ts')).bucketing(receive)
  const id = nextId++
  const whole = new Promise<Buckets>((resolve, reject) => pending.set(id, { resolve, reject, onLeading }))
  // Handled where it is returned; a failure before then is the worker's, and returned all the same.
  whole.catch(() => {})
  post({ id, year, contentType: response.headers.get('content-type') })
  const reader = response.body?.getReader()
  try {
    for (;;) {
      const read = await reader?.read()
      if (!read || read.done) break
      post({ id, piece: read.value }, [read.value.buffer])
    }
  } catch (error) {
    pending.delete(id)
    post({ id, end: false })
    throw error
  }
  post({ id, end: true })
  return whole
}
