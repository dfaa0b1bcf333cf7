import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { describe, expect, it, vi } from 'vitest'
import { compactUsageType, usageAccept } from '../../contract/usage-compact-type.ts'
import { addStore, addUser, grant } from '../../server/db/accounts.ts'
import { usages } from '../../server/db/schema.ts'
import { bearer, capturedSms, sharedTestApp, signIn, type TestApp } from './test-app.ts'

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
    expect(answer.headers['content-type']).toBe(compactUsageType)
    expect(cache.stats.builds).toBe(builds + 1)
    // The contract's JSON is not built ahead: it is asked for by other clients, and built when they do.
    await usage({}, 2026)
    expect(cache.stats.builds).toBe(builds + 2)
  })
})
