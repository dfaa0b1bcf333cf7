// One usage answer as it is sent: its body in one form, hashed into an ETag and compressed with gzip and
// brotli. The JSON is compressed fast when it is built, then again at the best levels in the background
// (cache.ts runs that); the compact form once, at its final levels.
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { brotliCompress, constants, createBrotliCompress, gunzip, gzip } from 'node:zlib'
import { compactUsageType, compactUsageTypeV2 } from '../../contract/usage-compact-type.ts'
import type { Db } from '../db/client.ts'
import { usageCompact, usageCompactV2, usageJson } from './scan.ts'

/**
 * The forms of a usage answer: the contract's JSON, and the compact encoding of our app, version 1
 * (`compact`) and version 2 (`compact2`: the year's day sums, then version 1's bytes).
 */
export type UsageForm = 'json' | 'compact' | 'compact2'

const typeOf = {
  json: 'application/json; charset=utf-8',
  compact: compactUsageType,
  compact2: compactUsageTypeV2,
}

/** One usage answer, as it is sent: its revision, form and ETag, and its body compressed both ways. */
export interface EncodedUsage {
  /** The store-year's revision it answers (usage_years.version). */
  revision: number
  form: UsageForm
  /** Its Content-Type. */
  type: string
  /**
   * Weak, because the bytes differ by encoding; from the form and the content, so every instance
   * agrees and the two forms never share one.
   */
  etag: string
  gzip: Buffer
  brotli: Buffer
  /** Length of the uncompressed body. */
  length: number
}

const gzipAsync = promisify(gzip)
const gunzipAsync = promisify(gunzip)
const brotliAsync = promisify(brotliCompress)

/** The answer's bytes, uncompressed (for a client that accepts neither brotli nor gzip). */
export const uncompressedBody = (answer: EncodedUsage) => gunzipAsync(answer.gzip)

const brotliParams = (quality: number, body: Buffer) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
})

/**
 * How each form is compressed when it is built (bench/README.md has the figures; the busy demo year,
 * 81,107 records, on one core). The JSON is compressed fast so the first answer goes out soon: brotli
 * quality 2 (7.46 bytes a record, 15 ms) and gzip level 1 (8.68, 12 ms), instead of quality 5 (6.73,
 * 56 ms) and level 6 (7.53, 39 ms); `recompressBest` makes the kept answer smaller afterwards. The
 * compact form is a sixteenth of the JSON and its low bytes are random: quality 5 takes 2 ms and is
 * within 1% of quality 11 (2.84 against 2.82 bytes a record, 150 ms), and gzip's levels all give 2.85 in
 * 4 ms, so it is compressed once, at its final levels, and never again.
 */
const firstCompression = {
  json: { brotliQuality: 2, gzipLevel: 1 },
  compact: { brotliQuality: 5, gzipLevel: 6 },
  compact2: { brotliQuality: 5, gzipLevel: 6 },
} as const

/**
 * Builds one answer as the cache does when it does not hold it: query, encoding, hash and the first
 * compression. `bench/usage-build.ts` times this very function.
 */
export async function buildUsageAnswer(
  db: Db,
  storeId: number,
  year: number,
  revision: number,
  form: UsageForm,
): Promise<EncodedUsage> {
  const body =
    form === 'json'
      ? Buffer.from(await usageJson(db, storeId, year))
      : form === 'compact'
        ? Buffer.from(await usageCompact(db, storeId, year))
        : Buffer.from(await usageCompactV2(db, storeId, year))
  const { brotliQuality, gzipLevel } = firstCompression[form]
  const [gzipped, brotli] = await Promise.all([
    gzipAsync(body, { level: gzipLevel }),
    brotliAsync(body, brotliParams(brotliQuality, body)),
  ])
  // The JSON's hash as before (its ETags stay valid); the compact one's names its form too.
  const hash = createHash('sha256')
  if (form !== 'json') hash.update(`${typeOf[form]}\n`)
  const tag = hash.update(body).digest('base64url').slice(0, 22)
  return {
    revision,
    form,
    type: typeOf[form],
    etag: `W/"${tag}"`,
    gzip: gzipped,
    brotli,
    length: body.length,
  }
}

/** Whether an answer's form is compressed again in the background (see `firstCompression`). */
export const recompressed = (form: UsageForm) => form === 'json'

/** Brotli is fed this much at a time when recompressing (see `brotliBest`). */
const brotliPiece = 256 * 1024

/**
 * Brotli at quality 11, fed in pieces: each piece is one task on libuv's thread pool (at most about
 * 0.3 s on the busy year's JSON, against 5 s for the whole), and `wanted` is asked before each one, so
 * the work stops soon after it is no longer wanted (a newer revision, the server closing). The output is
 * the same as compressing the body in one call: nothing is flushed between pieces.
 */
async function brotliBest(body: Buffer, wanted: () => boolean): Promise<Buffer | undefined> {
  const stream = createBrotliCompress(brotliParams(11, body))
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  // An error reaches the write or end below; without a listener it would also be thrown as an event.
  stream.on('error', () => {})
  try {
    for (let at = 0; at < body.length; at += brotliPiece) {
      if (!wanted()) return undefined
      const piece = body.subarray(at, at + brotliPiece)
      await new Promise<void>((resolve, reject) =>
        stream.write(piece, (error) => (error ? reject(error) : resolve())),
      )
    }
    if (!wanted()) return undefined
    await new Promise<void>((resolve, reject) => {
      stream.once('end', resolve).once('error', reject)
      stream.end()
    })
    return Buffer.concat(chunks)
  } finally {
    stream.destroy()
  }
}

/**
 * The same answer (same body, so the same ETag) compressed at the best levels: gzip level 9 and brotli
 * quality 11. For the busy year's JSON, brotli 5.46 bytes a record instead of the first answer's 7.46
 * (quality 5 gave 6.73) and gzip 7.08 instead of 8.68, at 5 to 7 s of one core. Undefined when `wanted`
 * says no before it is done.
 */
export async function recompressBest(
  answer: EncodedUsage,
  wanted: () => boolean,
): Promise<EncodedUsage | undefined> {
  const body = await uncompressedBody(answer)
  if (!wanted()) return undefined
  const gzipped = await gzipAsync(body, { level: 9 })
  const brotli = await brotliBest(body, wanted)
  if (!brotli) return undefined
  // Whichever is smaller: on a very regular body (a test's hourly records) quality 11 can lose to 2.
  const smaller = (best: Buffer, first: Buffer) => (best.length < first.length ? best : first)
  return { ...answer, gzip: smaller(gzipped, answer.gzip), brotli: smaller(brotli, answer.brotli) }
}
