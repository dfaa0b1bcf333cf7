// Runs bucketing off the main thread. It receives a usage answer's body as it streams (the body itself,
// transferred, which it reads here; or, where a browser cannot transfer a stream, its pieces, posted as
// they arrive) with its Content-Type, and answers with the buckets only: first, for a version 2 compact
// answer, the buckets of its leading sums, then those of the whole answer.

import type { Buckets } from '../figures/buckets.ts'
import { usageFeed } from './bucket-records.ts'

export type BucketRequest =
  | {
      id: number
      year: number
      /** The answer's Content-Type: it says whether the bytes are JSON or the compact encoding. */
      contentType: string | null
      /** The body, transferred; without it, its pieces follow as `BucketPiece`s. */
      stream?: ReadableStream<Uint8Array>
    }
  | BucketPiece

/** A piece of a body the main thread reads (`end` after the last; `error` when the body failed). */
export type BucketPiece =
  | { id: number; piece: Uint8Array }
  | { id: number; end: true }
  | { id: number; error: string }

export type BucketReply =
  | { id: number; leading: Buckets }
  | { id: number; buckets: Buckets; mismatch?: string | undefined }
  | { id: number; error: string }

const feeds = new Map<number, ReturnType<typeof usageFeed>>()

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

function handle(data: BucketRequest) {
  const { id } = data
  try {
    if ('year' in data) {
      feeds.set(
        id,
        usageFeed(data.year, data.contentType, (leading) =>
          self.postMessage({ id, leading } satisfies BucketReply),
        ),
      )
      if (data.stream) void read(id, data.stream)
      return
    }
    const feed = feeds.get(id)
    if (!feed) return
    if ('piece' in data) return feed.push(data.piece)
    feeds.delete(id)
    if ('error' in data) throw new Error(data.error)
    self.postMessage({ id, ...feed.end() } satisfies BucketReply)
  } catch (error) {
    feeds.delete(id)
    self.postMessage({ id, error: message(error) } satisfies BucketReply)
  }
}

/** Reads a transferred body into its feed, piece by piece as it arrives. */
async function read(id: number, stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      handle({ id, piece: value })
    }
    handle({ id, end: true })
  } catch (error) {
    handle({ id, error: message(error) })
  }
}

self.onmessage = ({ data }: MessageEvent<BucketRequest>) => handle(data)
