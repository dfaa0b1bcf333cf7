// Hands usage bytes to the bucketing worker and resolves with its buckets. Where a worker cannot run
// (an old browser, a test environment, a worker that failed to load), bucketing runs here instead,
// with the same code loaded on demand.

import type { Buckets } from '../figures/buckets.ts'
import type { BucketReply, BucketRequest } from './bucket.worker.ts'

type Pending = { resolve(buckets: Buckets): void; reject(error: Error): void }

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

/** The buckets of a usage answer's bytes, JSON or compact as its Content-Type says. */
export function bucketInWorker(
  bytes: ArrayBuffer,
  year: number,
  contentType: string | null,
): Promise<Buckets> {
  if (worker === undefined) worker = startWorker()
  return new Promise((resolve, reject) => {
    const target = worker
    if (!target) {
      import('./bucket-records.ts').then(
        ({ bucketUsage }) => resolve(bucketUsage(bytes, year, contentType)),
        reject,
      )
      return
    }
    const id = nextId++
    pending.set(id, { resolve, reject })
    const message: BucketRequest = { id, bytes, year, contentType }
    target.postMessage(message, [bytes])
  })
}
