// Runs bucketing off the main thread: it receives the response bytes (transferred, not copied) with
// their Content-Type and answers with the buckets only.

import type { Buckets } from '../figures/buckets.ts'
import { bucketUsage } from './bucket-records.ts'

export interface BucketRequest {
  id: number
  bytes: ArrayBuffer
  year: number
  /** The answer's Content-Type: it says whether the bytes are JSON or the compact encoding. */
  contentType: string | null
}

export type BucketReply = { id: number; buckets: Buckets } | { id: number; error: string }

self.onmessage = ({ data }: MessageEvent<BucketRequest>) => {
  let reply: BucketReply
  try {
    reply = { id: data.id, buckets: bucketUsage(data.bytes, data.year, data.contentType) }
  } catch (error) {
    reply = { id: data.id, error: error instanceof Error ? error.message : String(error) }
  }
  self.postMessage(reply)
}
