import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { and, eq, sql } from 'drizzle-orm'
import { describe, expect, it, vi } from 'vitest'
import { compactUsageTypeV2, usageAccept } from '../../../contract/usage-compact-type.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { usages, usageYears } from '../../../server/db/schema.ts'
import { recompressBest, uncompressedBody } from '../../../server/usage/answer.ts'
import { usageCache } from '../../../server/usage/cache.ts'
import { bearer, capturedSms, createTestApp, sharedTestApp, signIn, type TestApp } from '../test-app.ts'

const owner = '01012345678'
const sms = capturedSms()
const records = Array.from({ length: 500 }, (_, i) => ({
  storeId: 1,
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000),
  amount: 3000 + (i % 10) * 500,
}))

async function setup(app: TestApp) {
  await addUser(app.db, { phone: owner, name: '김사장' })
  await grant(app.db, owner, await addStore(app.db, { name: '역삼점' }), 'owner')
  await app.db.insert(usages).values(records)
}

const current = sharedTestApp({ sms, setup })
let access = ''
async function usage(headers: Record<string, string> = {}, year = 2026) {
  access ||= (await signIn(current.app, sms, owner)).access
  return current.app.inject({
    method: 'GET',
    url: `/api/v0/store/1/usage?year=${year}`,
    headers: { ...bearer(access), ...headers },
  })
}

describe('the usage answer over the wire', () => {
  it('carries a weak ETag, Cache-Control: no-store (the browser never keeps the records) and Vary: Accept, Accept-Encoding', async () => {
    access = ''
    const response = await usage()
    expect(response.statusCode).toBe(200)
    expect(response.headers.etag).toMatch(/^W\/"[\w-]{22}"$/)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers.vary).toBe('accept, accept-encoding')
    expect(response.json().usages).toHaveLength(500)
  })

  it('answers 304 with no body while nothing changed', async () => {
    access = ''
    const { headers } = await usage()
    const revalidated = await usage({ 'if-none-match': String(headers.etag) })
    expect(revalidated.statusCode).toBe(304)
    expect(revalidated.body).toBe('')
    expect(revalidated.headers.etag).toBe(headers.etag)
    expect(revalidated.headers['cache-control']).toBe('no-store')
  })

  it('a new record of that year changes the ETag and the answer; one of another year does not', async () => {
    access = ''
    const before = await usage()
    await current.app.db
      .insert(usages)
      .values({ storeId: 1, createdAt: new Date('2025-06-01T00:00:00Z'), amount: 4000 })
    expect((await usage({ 'if-none-match': String(before.headers.etag) })).statusCode).toBe(304)
    await current.app.db
      .insert(usages)
      .values({ storeId: 1, createdAt: new Date('2026-06-01T00:00:00Z'), amount: 4000 })
    const after = await usage({ 'if-none-match': String(before.headers.etag) })
    expect(after.statusCode).toBe(200)
    expect(after.headers.etag).not.toBe(before.headers.etag)
    expect(after.json().usages).toHaveLength(501)
  })

  it('sends brotli or gzip when the client takes them, the same JSON in each', async () => {
    access = ''
    const plain = await usage({ 'accept-encoding': 'identity' })
    expect(plain.headers['content-encoding']).toBeUndefined()
    const br = await usage({ 'accept-encoding': 'gzip, deflate, br' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body)
    const gzip = await usage({ 'accept-encoding': 'gzip, br;q=0' })
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body)
    expect(br.rawPayload.length).toBeLessThan(8 * 500)
  })

  it('repeated answers do no work on the records: the answer is built once and kept', async () => {
    access = ''
    const execute = vi.spyOn(current.app.db, 'execute')
    try {
      const builds = current.app.usageCache.stats.builds
      await usage()
      expect(
        execute.mock.calls.filter(([query]) => JSON.stringify(query).includes('string_agg')),
      ).toHaveLength(1)
      await usage()
      await usage({ 'accept-encoding': 'br' })
      await usage({ 'if-none-match': 'W/"other"' })
      expect(current.app.usageCache.stats.builds).toBe(builds + 1)
      expect(
        execute.mock.calls.filter(([query]) => JSON.stringify(query).includes('string_agg')),
      ).toHaveLength(1)
    } finally {
      execute.mockRestore()
    }
  })

  it('concurrent first requests build the answer once', async () => {
    access = (await signIn(current.app, sms, owner)).access
    const builds = current.app.usageCache.stats.builds
    const answers = await Promise.all([usage({}, 2026), usage({}, 2026), usage({}, 2026)])
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200])
    expect(current.app.usageCache.stats.builds).toBe(builds + 1)
  })

  it('answers built ahead (after a start) are given from memory: the first owner to ask waits for no build', async () => {
    const cache = current.app.usageCache
    // A new record: whatever was built before is out of date.
    await current.app.db
      .insert(usages)
      .values({ storeId: 1, createdAt: new Date(Date.UTC(2026, 5, 1)), amount: 1000 })
    const builds = cache.stats.builds
    expect(await cache.warm([2026, 2025])).toBe(1)
    expect(cache.stats.builds).toBe(builds + 1)
    const answer = await usage({ accept: usageAccept }, 2026)
    expect(answer.statusCode).toBe(200)
    expect(answer.headers['content-type']).toBe(compactUsageTypeV2)
    expect(cache.stats.builds).toBe(builds + 1)
    // The contract's JSON is not built ahead: it is asked for by other clients, and built when they do.
    await usage({}, 2026)
    expect(cache.stats.builds).toBe(builds + 2)
  })
})

/** The version the database holds for store 1's year. */
async function versionOf(year: number) {
  const [row] = await current.app.db
    .select({ version: usageYears.version })
    .from(usageYears)
    .where(and(eq(usageYears.storeId, 1), eq(usageYears.year, year)))
  return Number(row?.version ?? 0)
}

/**
 * 3,000 records of 2026 at irregular instants (to the millisecond, as real ones are): brotli's best
 * quality is well ahead of its fastest on them, as on real years (the 500 hourly ones compress about
 * as well either way).
 */
async function irregularRecords() {
  let seed = 7
  const next = () => {
    seed = (seed * 48271) % 2147483647
    return seed
  }
  const start = Date.UTC(2026, 1, 1)
  await current.app.db.insert(usages).values(
    Array.from({ length: 3000 }, (_, i) => ({
      storeId: 1,
      createdAt: new Date(start + i * 2_000_000 + (next() % 1_000_000)),
      amount: 1000 + (next() % 9) * 500,
    })),
  )
}

const newRecord = (year = 2026) =>
  current.app.db
    .insert(usages)
    .values({ storeId: 1, createdAt: new Date(Date.UTC(year, 6, 1)), amount: 4500 })

describe('the JSON answer compressed twice: fast for the first answer, at the best levels in the background', () => {
  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ])(
    '%s: the first answer decompresses to the body; once settled, the kept one is smaller, the same bytes and the same ETag',
    async (encoding, decompress) => {
      access = ''
      const cache = current.app.usageCache
      await cache.settled() // nothing left from earlier tests
      await irregularRecords() // and a version no earlier request built
      const recompressions = cache.stats.recompressions
      // This request builds the answer and sends the bytes of that build: the first compression.
      const first = await usage({ 'accept-encoding': encoding })
      expect(first.headers['content-encoding']).toBe(encoding)
      const plain = await usage({ 'accept-encoding': 'identity' })
      expect(decompress(first.rawPayload).toString()).toBe(plain.body)

      await cache.settled()
      expect(cache.stats.recompressions).toBe(recompressions + 1)
      const kept = await usage({ 'accept-encoding': encoding })
      expect(kept.headers.etag).toBe(first.headers.etag)
      expect(decompress(kept.rawPayload).toString()).toBe(plain.body)
      expect(kept.rawPayload.length).toBeLessThan(first.rawPayload.length)
    },
  )

  it('the first answer itself is the fast compression, and the compact form is never recompressed', async () => {
    await irregularRecords()
    const cache = usageCache(current.app.db)
    const version = await versionOf(2026)
    const first = await cache.get(1, 2026, version, 'json')
    const body = await uncompressedBody(first)
    expect(brotliDecompressSync(first.brotli)).toEqual(body)
    const compact = await cache.get(1, 2026, version, 'compact')
    await cache.settled()
    expect(cache.stats.recompressions).toBe(1)
    const kept = await cache.get(1, 2026, version, 'json')
    expect(kept).not.toBe(first)
    expect(kept.etag).toBe(first.etag)
    expect(kept.brotli.length).toBeLessThan(first.brotli.length)
    expect(brotliDecompressSync(kept.brotli)).toEqual(body)
    expect(await cache.get(1, 2026, version, 'compact')).toBe(compact)
    await cache.close()
  })

  it('an answer whose version moved on before its turn is neither recompressed nor kept in place of the newer one', async () => {
    access = ''
    const cache = current.app.usageCache
    await cache.settled()
    const recompressions = cache.stats.recompressions
    const before = await usage()
    await newRecord()
    const after = await usage()
    expect(after.headers.etag).not.toBe(before.headers.etag)
    await cache.settled()
    const kept = await usage({ 'accept-encoding': 'br' })
    expect(kept.headers.etag).toBe(after.headers.etag)
    expect(brotliDecompressSync(kept.rawPayload).toString()).toBe(after.body)
    // The newer one was recompressed; the older one at most before the newer was built.
    expect(cache.stats.recompressions - recompressions).toBeGreaterThanOrEqual(1)

    // Built for a version the database has already left (asked just before a record came): skipped.
    const own = usageCache(current.app.db)
    const version = await versionOf(2026)
    await newRecord()
    const stale = await own.get(1, 2026, version, 'json')
    await own.settled()
    expect(own.stats.recompressions).toBe(0)
    expect(await own.get(1, 2026, version, 'json')).toBe(stale)
    await own.close()
  })

  it('an answer no longer kept (dropped for room) is not recompressed', async () => {
    const cache = usageCache(current.app.db, { maxBytes: 100 })
    await cache.get(1, 2026, await versionOf(2026), 'json')
    expect(cache.size).toBe(0)
    await cache.settled()
    expect(cache.stats.recompressions).toBe(0)
    await cache.close()
  })

  it('closing while a recompression runs stops it soon, without throwing; nothing is recompressed after', async () => {
    // A year big enough for brotli quality 11 to take a while: 20,000 records, about 1.2 MB of JSON.
    const start = Date.UTC(2024, 0, 1)
    const many = Array.from({ length: 20_000 }, (_, i) => ({
      storeId: 1,
      createdAt: new Date(start + i * 1_234_567 + (i % 997)),
      amount: 1000 + (i % 13) * 500,
    }))
    for (let at = 0; at < many.length; at += 5000)
      await current.app.db.insert(usages).values(many.slice(at, at + 5000))
    const version = await versionOf(2024)

    const cache = usageCache(current.app.db)
    const first = await cache.get(1, 2024, version, 'json')
    let started = performance.now()
    await recompressBest(first, () => true)
    const wholeMs = performance.now() - started

    // Again, on a fresh cache: closed once its recompression has had time to start.
    const closing = usageCache(current.app.db)
    const answer = await closing.get(1, 2024, version, 'json')
    await new Promise((resolve) => setTimeout(resolve, 50))
    started = performance.now()
    await expect(closing.close()).resolves.toBeUndefined()
    const closeMs = performance.now() - started
    expect(closeMs).toBeLessThan(wholeMs / 2)
    expect(closing.stats.recompressions).toBe(0)
    expect(await closing.get(1, 2024, version, 'json')).toBe(answer)
    // Built after the close: kept and answered, never queued.
    await closing.get(1, 2026, await versionOf(2026), 'json')
    await closing.settled()
    expect(closing.stats.recompressions).toBe(0)
    await cache.close()
  })
})

describe("the server's close", () => {
  it('stops the recompressions while the database is still open, and closes the database last', async () => {
    const app = await createTestApp()
    const seen: string[] = []
    const close = app.usageCache.close
    app.usageCache.close = async () => {
      // The database must still answer here: a recompression's turn asks it for the version.
      seen.push(
        await app.db.execute(sql`select 1`).then(
          () => 'database open',
          () => 'database closed',
        ),
      )
      await close()
    }
    await app.close()
    expect(seen).toEqual(['database open'])
  })
})
