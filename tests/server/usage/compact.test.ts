// The compact usage form over the wire (docs/architecture.md, "The compact usage encoding"): which Accept
// gets it, its own ETag and 304s, Vary on both forms, the same refusals as JSON, built once per version
// and kept, and its records exactly the JSON answer's, from records in the database through the API to
// the worker's bucketing.
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { decodeUsage } from '../../../contract/usage-compact.ts'
import { compactUsageType } from '../../../contract/usage-compact-type.ts'
import { bucketCompact, scanCanonical } from '../../../domain/bucketing.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { usages } from '../../../server/db/schema.ts'
import { usageFormFor } from '../../../server/usage/negotiation.ts'
import { bearer, capturedSms, sharedTestApp, signIn, type TestApp } from '../test-app.ts'

/** A client that knows version 1 only (the app before version 2): it keeps getting version 1. */
const usageAccept = 'application/vnd.laundry.usage; v=1, application/json;q=0.9'
const owner = '01012345678'
const sms = capturedSms()
let storeId = 0
let otherStore = 0

const records = Array.from({ length: 300 }, (_, i) => ({
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000 + (i % 7) * 1001),
  amount: 3000 + (i % 10) * 500,
}))

async function setup(app: TestApp) {
  await addUser(app.db, { phone: owner, name: '김사장' })
  storeId = await addStore(app.db, { name: '역삼점' })
  otherStore = await addStore(app.db, { name: '남의 매장' })
  await grant(app.db, owner, storeId, 'owner')
  await app.db.insert(usages).values(records.map((row) => ({ storeId, ...row })))
}

const current = sharedTestApp({ sms, setup })
let access = ''
async function usage(headers: Record<string, string> = {}, { year = 2026, store = storeId } = {}) {
  access ||= (await signIn(current.app, sms, owner)).access
  return current.app.inject({
    method: 'GET',
    url: `/api/v0/store/${store}/usage?year=${year}`,
    headers: { ...bearer(access), ...headers },
  })
}

type Row = { createdAt: Date; amount: number }

/** The records of a compact body, as the JSON answer writes them. */
function decoded(bytes: Uint8Array) {
  const found: { createdAt: string; amount: number }[] = []
  decodeUsage(bytes, (createdAt, amount) =>
    found.push({ createdAt: new Date(createdAt).toISOString(), amount }),
  )
  return found
}

describe('which form a client gets', () => {
  it('compact only when Accept names it, version 1, with a q above 0 and at least JSON’s', () => {
    const compact = [
      usageAccept,
      compactUsageType,
      'application/vnd.laundry.usage;v=1',
      'Application/Vnd.Laundry.Usage; V=1',
      'application/vnd.laundry.usage; v="1"',
      'application/json;q=0.9, application/vnd.laundry.usage; v=1',
      'application/vnd.laundry.usage; v=1; q=0.5, application/json; q=0.5',
      'application/vnd.laundry.usage; v=1; q=0.5, */*; q=0.4',
      'application/vnd.laundry.usage; v=1, application/json; q=0',
    ]
    const json = [
      undefined,
      '',
      '*/*',
      'application/json',
      'application/*',
      'text/html, */*;q=0.8',
      'application/vnd.laundry.usage',
      'application/vnd.laundry.usage; v=1; q=0',
      'application/vnd.laundry.usage; v=1; q=0.5, application/json',
      'application/vnd.laundry.usage; v=1; q=0.5, */*',
      'application/vnd.laundry.usage; v=1; q=0.8, application/json; q=0.9, */*; q=0.1',
      'application/vnd.laundry.usage+json; v=1',
    ]
    for (const accept of compact) expect(usageFormFor(accept), String(accept)).toBe('compact')
    for (const accept of json) expect(usageFormFor(accept), String(accept)).toBe('json')
  })

  it('answers the compact form to the app’s Accept, JSON to everyone else, both with Vary: Accept', async () => {
    access = ''
    const plain = await usage()
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(plain.headers.vary).toBe('accept, accept-encoding')
    expect(plain.json().usages).toHaveLength(records.length)
    for (const accept of ['application/json', '*/*', 'application/vnd.laundry.usage; v=3']) {
      const json = await usage({ accept })
      expect(json.headers['content-type'], accept).toBe('application/json; charset=utf-8')
      expect(json.body, accept).toBe(plain.body)
    }
    const compact = await usage({ accept: usageAccept })
    expect(compact.statusCode).toBe(200)
    expect(compact.headers['content-type']).toBe(compactUsageType)
    expect(compact.headers.vary).toBe('accept, accept-encoding')
    expect(compact.headers['cache-control']).toBe('no-store')
    expect(decoded(new Uint8Array(compact.rawPayload))).toEqual(plain.json().usages)
    // A twelfth of the JSON before compression already.
    expect(compact.rawPayload.length).toBeLessThan(plain.rawPayload.length / 12)
  })

  it('compresses the compact form like the JSON, the same bytes in each encoding', async () => {
    access = ''
    const plain = await usage({ accept: usageAccept, 'accept-encoding': 'identity' })
    expect(plain.headers['content-encoding']).toBeUndefined()
    const br = await usage({ accept: usageAccept, 'accept-encoding': 'gzip, deflate, br' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(brotliDecompressSync(br.rawPayload)).toEqual(plain.rawPayload)
    const gzip = await usage({ accept: usageAccept, 'accept-encoding': 'gzip' })
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzip.rawPayload)).toEqual(plain.rawPayload)
    expect(br.headers['content-type']).toBe(compactUsageType)
  })
})

describe('ETags and 304s per form', () => {
  it('gives each form its own ETag, and a 304 only to the ETag of the form asked for', async () => {
    access = ''
    const json = await usage()
    const compact = await usage({ accept: usageAccept })
    const jsonTag = String(json.headers.etag)
    const compactTag = String(compact.headers.etag)
    expect(compactTag).toMatch(/^W\/"[\w-]{22}"$/)
    expect(compactTag).not.toBe(jsonTag)

    const compactAgain = await usage({ accept: usageAccept, 'if-none-match': compactTag })
    expect(compactAgain.statusCode).toBe(304)
    expect(compactAgain.body).toBe('')
    expect(compactAgain.headers.etag).toBe(compactTag)
    expect(compactAgain.headers.vary).toBe('accept, accept-encoding')
    expect(compactAgain.headers['cache-control']).toBe('no-store')
    const jsonAgain = await usage({ 'if-none-match': jsonTag })
    expect(jsonAgain.statusCode).toBe(304)
    expect(jsonAgain.headers.vary).toBe('accept, accept-encoding')

    // The other form's ETag is not this form's: the whole answer comes.
    const crossed = await usage({ accept: usageAccept, 'if-none-match': jsonTag })
    expect(crossed.statusCode).toBe(200)
    expect(crossed.headers['content-type']).toBe(compactUsageType)
    expect((await usage({ 'if-none-match': compactTag })).statusCode).toBe(200)
  })

  it('a new record of that year changes the compact ETag and answer', async () => {
    access = ''
    const before = await usage({ accept: usageAccept })
    await current.app.db
      .insert(usages)
      .values({ storeId, createdAt: new Date('2025-06-01T00:00:00Z'), amount: 4000 })
    expect(
      (await usage({ accept: usageAccept, 'if-none-match': String(before.headers.etag) })).statusCode,
    ).toBe(304)
    await current.app.db
      .insert(usages)
      .values({ storeId, createdAt: new Date('2026-06-01T00:00:30.250Z'), amount: 4000 })
    const after = await usage({ accept: usageAccept, 'if-none-match': String(before.headers.etag) })
    expect(after.statusCode).toBe(200)
    expect(after.headers.etag).not.toBe(before.headers.etag)
    const found = decoded(new Uint8Array(after.rawPayload))
    expect(found).toHaveLength(records.length + 1)
    expect(found).toContainEqual({ createdAt: '2026-06-01T00:00:30.250Z', amount: 4000 })
  })
})

describe('the compact form is kept like the JSON', () => {
  it('is built once per version and form from one ordered scan, and repeated answers do no work', async () => {
    access = ''
    const execute = vi.spyOn(current.app.db, 'execute')
    try {
      const builds = current.app.usageCache.stats.builds
      await usage({ accept: usageAccept })
      await usage({ accept: usageAccept })
      await usage({ accept: usageAccept, 'accept-encoding': 'br' })
      await usage({ accept: usageAccept, 'if-none-match': 'W/"other"' })
      expect(current.app.usageCache.stats.builds).toBe(builds + 1)
      const scans = execute.mock.calls.filter(([query]) => JSON.stringify(query).includes('string_agg'))
      expect(scans).toHaveLength(1)
      await usage()
      expect(current.app.usageCache.stats.builds).toBe(builds + 2)
    } finally {
      execute.mockRestore()
    }
  })

  it('concurrent first requests of both forms build each once', async () => {
    access = (await signIn(current.app, sms, owner)).access
    const builds = current.app.usageCache.stats.builds
    const answers = await Promise.all([
      usage({ accept: usageAccept }),
      usage(),
      usage({ accept: usageAccept }),
      usage(),
    ])
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200])
    expect(answers.map((a) => a.headers['content-type'])).toEqual([
      compactUsageType,
      'application/json; charset=utf-8',
      compactUsageType,
      'application/json; charset=utf-8',
    ])
    expect(current.app.usageCache.stats.builds).toBe(builds + 2)
  })
})

describe('the same refusals in either form', () => {
  it('401 without a token, 403 for a store of someone else, 400 for a bad year: JSON error bodies', async () => {
    access = ''
    const headers = { accept: usageAccept }
    const unsigned = await current.app.inject({
      method: 'GET',
      url: `/api/v0/store/${storeId}/usage?year=2026`,
      headers,
    })
    expect(unsigned.statusCode).toBe(401)
    expect(unsigned.headers['content-type']).toMatch(/^application\/json/)
    const foreign = await usage(headers, { store: otherStore })
    expect(foreign.statusCode).toBe(403)
    expect(foreign.json().message).toMatch(/[가-힣]/)
    const badYear = await usage(headers, { year: 1999 })
    expect(badYear.statusCode).toBe(400)
    expect(badYear.headers['content-type']).toMatch(/^application\/json/)
  })
})

describe('the compact answer holds exactly the JSON answer’s records', () => {
  /** Replaces the store's records (a delete, so the trigger moves the version). */
  async function storeRecords(rows: readonly Row[]) {
    await current.app.db.execute(sql`delete from usages`)
    if (rows.length > 0) await current.app.db.insert(usages).values(rows.map((row) => ({ storeId, ...row })))
  }

  const utc = (year: number, month = 1, day = 1) => Date.UTC(year, month - 1, day)
  const instant = (year: number) =>
    fc
      .oneof(
        fc.constantFrom(utc(year), utc(year) - 1, utc(year + 1) - 1, utc(year + 1), utc(year, 3) - 1),
        fc.integer({ min: utc(year) - 86_400_000, max: utc(year + 1) + 86_400_000 }),
      )
      .map((ms) => new Date(ms))
  const amount = fc.oneof(
    fc.constantFrom(0, 3000, 3500, 4000, 10_000_000),
    fc.integer({ min: 0, max: 10_000_000 }),
  )
  const yearAndRows = fc
    .constantFrom(2000, 2024, 2026, 2100)
    .chain((year) =>
      fc.tuple(
        fc.constant(year),
        fc.array(fc.record({ createdAt: instant(year), amount }), { maxLength: 150 }),
      ),
    )

  it('records in the database, through the API: the same records in the same order, and the same buckets', async () => {
    access = ''
    await fc.assert(
      fc.asyncProperty(yearAndRows, async ([year, rows]) => {
        await storeRecords(rows)
        const json = await usage({}, { year })
        const compact = await usage({ accept: usageAccept }, { year })
        expect(compact.headers['content-type']).toBe(compactUsageType)
        const bytes = new Uint8Array(compact.rawPayload)
        expect(decoded(bytes)).toEqual(json.json().usages)
        expect(bucketCompact(bytes, year)).toEqual(scanCanonical(new Uint8Array(json.rawPayload), year))
      }),
      { seed: 14, numRuns: 60 },
    )
  })

  it('int32-sized amounts too, should the database ever allow them', async () => {
    access = ''
    const db = current.app.db
    await db.execute(sql`delete from usages`)
    await db.execute(sql`alter table usages drop constraint usages_amount_range`)
    try {
      const rows: Row[] = [
        { createdAt: new Date('2026-03-01T00:00:00.000Z'), amount: -2_147_483_648 },
        { createdAt: new Date('2026-03-01T00:00:00.000Z'), amount: 2_147_483_647 },
        { createdAt: new Date('2026-03-01T00:00:00.001Z'), amount: -4000 },
        { createdAt: new Date('2026-12-31T23:59:59.999Z'), amount: 4000 },
      ]
      await storeRecords(rows)
      const compact = await usage({ accept: usageAccept })
      expect(decoded(new Uint8Array(compact.rawPayload))).toEqual((await usage()).json().usages)
    } finally {
      await db.execute(sql`delete from usages`)
      await db.execute(
        sql`alter table usages add constraint usages_amount_range check (amount between -10000000 and 10000000)`,
      )
    }
  })
})
