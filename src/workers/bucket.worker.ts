// Runs bucketing off the main thread. It receives a usage answer's body as it streams, piece by piece
// (each transferred, not copied), after its year and Content-Type, and answers with the buckets only:
// first, for a version 2 compact answer, the buckets of its leading sums, then those of the whole answer.

import type { Buckets } from '../figures/buckets.ts'
import { usageFeed } from './bucket-records.ts'

/**
 * An answer's start (its year, and its Content-Type: JSON or the compact encoding), then each piece of
 * its body, then its end (`end: false` when the body failed: the answer is dropped, with no reply).
 */
export type BucketRequest =
  | { id: number; year: number; contentType: string | null }
  | { id: number; piece: Uint8Array }
  | { id: number; end: boolean }

export type BucketReply =
  | { id: number; leading: Buckets }
  | { id: number; buckets: Buckets }
  | { id: number; error: string }

const feeds = new Map<number, ReturnType<typeof usageFeed>>()

self.onmessage = ({ data }: MessageEvent<BucketRequest>) => {
  const { id } = data
  const feed = feeds.get(id)
  try {
    if ('year' in data)
      feeds.set(
        id,
        usageFeed(data.year, data.contentType, (leading) =>
          self.postMessage({ id, leading } satisfies BucketReply),
        ),
      )
    else if ('piece' in data) feed?.push(data.piece)
    else if (feeds.delete(id) && data.end && feed)
      self.postMessage({ id, buckets: feed.end() } satisfies BucketReply)
  } catch (error) {
    feeds.delete(id)
    self.postMessage({
      id,
      error: String(error instanceof Error ? error.message : error),
    } satisfies BucketReply)
  }
}
