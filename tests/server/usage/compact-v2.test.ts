// The compact usage form, version 2 (contract/usage-compact.md "Version 2"; decision 115): negotiated by
// Accept as version 1 is, its leading day sums equal the buckets of its own records and of the JSON, its
// records are version 1's bytes exactly, one ETag of its own and the same Usage-Revision; and the JSON
// and version 1 answers are byte for byte what they were before version 2 existed.
import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readLeadingSums } from '../../../contract/usage-compact.ts'
import { compactUsageType, compactUsageTypeV2, usageAccept } from '../../../contract/usage-compact-type.ts'
import { bucketCompact, scanCanonical } from '../../../domain/bucketing.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { usages } from '../../../server/db/schema.ts'
import { usageFormFor } from '../../../server/usage/negotiation.ts'
import { bearer, capturedSms, sharedTestApp, signIn, type TestApp } from '../test-app.ts'

const owner = '01012345678'
const sms = capturedSms()
let storeId = 0
const v1Accept = 'application/vnd.laundry.usage; v=1, application/json;q=0.9'

const records = Array.from({ length: 300 }, (_, i) => ({
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000 + (i % 7) * 1001),
  amount: (i % 13 === 0 ? -1 : 1) * (3000 + (i % 10) * 500),
}))

async function setup(app: TestApp) {
  await addUser(app.db, { phone: owner, name: '김사장' })
  storeId = await addStore(app.db, { name: '역삼점' })
  await grant(app.db, owner, storeId, 'owner')
  await app.db.insert(usages).values(records.map((row) => ({ storeId, ...row })))
}

const current = sharedTestApp({ sms, setup })
let access = ''
async function usage(headers: Record<string, string> = {}, year = 2026) {
  access ||= (await signIn(current.app, sms, owner)).access
  return current.app.inject({
    method: 'GET',
    url: `/api/v0/store/${storeId}/usage?year=${year}`,
    headers: { ...bearer(access), 'accept-encoding': 'identity', ...headers },
  })
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** Splits a version 2 body into its leading sums and its version 1 bytes. */
function split(body: Buffer, year: number) {
  const bytes = new Uint8Array(body)
  const lead = readLeadingSums(bytes, year)
  if (!lead) throw new Error('no leading sums')
  return { sums: lead.sums, records: bytes.subarray(lead.recordsAt) }
}

describe('which form a client gets', () => {
  it('version 2 when Accept names it with a q at least version 1’s and JSON’s; version 1 clients unchanged', () => {
    for (const accept of [
      usageAccept,
      compactUsageTypeV2,
      'application/vnd.laundry.usage;v=2',
      'application/vnd.laundry.usage; v="2"',
      'application/vnd.laundry.usage; v=1, application/vnd.laundry.usage; v=2',
      'application/vnd.laundry.usage; v=2; q=0.5, application/json; q=0.5',
    ])
      expect(usageFormFor(accept), accept).toBe('compact2')
    for (const accept of [
      v1Accept,
      compactUsageType,
      'application/vnd.laundry.usage; v=2; q=0.5, application/vnd.laundry.usage; v=1',
      'application/vnd.laundry.usage; v=2; q=0, application/vnd.laundry.usage; v=1',
    ])
      expect(usageFormFor(accept), accept).toBe('compact')
    for (const accept of [
      undefined,
      '*/*',
      'application/vnd.laundry.usage; v=2; q=0.5, application/json',
      'application/vnd.laundry.usage; v=2; q=0',
    ])
      expect(usageFormFor(accept), String(accept)).toBe('json')
  })
})

describe('the answer over the wire', () => {
  it('JSON and version 1 are byte for byte (and ETag for ETag) what they were before version 2', async () => {
    access = ''
    // Taken from the commit before version 2 (7a86b87) with the same 300 records.
    const json = await usage()
    const v1 = await usage({ accept: v1Accept })
    expect(v1.headers['content-type']).toBe(compactUsageType)
    expect({ json: sha(json.rawPayload), v1: sha(v1.rawPayload) }).toEqual(GOLDEN.bodies)
    expect({ json: json.headers.etag, v1: v1.headers.etag }).toEqual(GOLDEN.etags)
  })

  it('version 2: the day sums, then version 1’s bytes; its own ETag and 304, the same revision', async () => {
    access = ''
    const v1 = await usage({ accept: v1Accept })
    const json = await usage()
    const v2 = await usage({ accept: usageAccept })
    expect(v2.statusCode).toBe(200)
    expect(v2.headers['content-type']).toBe(compactUsageTypeV2)
    expect(v2.headers.vary).toBe('accept, accept-encoding')
    expect(v2.headers['cache-control']).toBe('no-store')
    expect(v2.headers['usage-revision']).toBe(v1.headers['usage-revision'])
    expect(new Set([v2.headers.etag, v1.headers.etag, json.headers.etag]).size).toBe(3)
    const { sums, records: recordBytes } = split(v2.rawPayload, 2026)
    expect(Buffer.from(recordBytes)).toEqual(v1.rawPayload)
    const buckets = bucketCompact(recordBytes, 2026)
    expect(sums.daySums).toEqual(buckets.days.flat())
    expect(sums.dayCounts).toEqual(buckets.dayCounts.flat())
    // The sums cost under 1 % of the busy year's answer; here, a few hundred bytes.
    expect(v2.rawPayload.length - v1.rawPayload.length).toBeLessThan(366 * 5)
    const again = await usage({ accept: usageAccept, 'if-none-match': String(v2.headers.etag) })
    expect(again.statusCode).toBe(304)
    expect(again.headers['usage-revision']).toBe(v1.headers['usage-revision'])
    const crossed = await usage({ accept: usageAccept, 'if-none-match': String(v1.headers.etag) })
    expect(crossed.statusCode).toBe(200)
  })

  it('a year without records: 365 or 366 zero days, then an empty version 1 answer', async () => {
    access = ''
    for (const year of [2024, 2025]) {
      const v2 = await usage({ accept: usageAccept }, year)
      const { sums, records: recordBytes } = split(v2.rawPayload, year)
      expect(sums.daySums).toHaveLength(year === 2024 ? 366 : 365)
      expect(sums.daySums.every((sum) => sum === 0)).toBe(true)
      expect([...recordBytes]).toEqual([0x4c, 0x55, 1, 0])
    }
  })

  it('for random records in the database: the leading sums equal the buckets of its records and of the JSON', async () => {
    access = ''
    const db = current.app.db
    const year = 2028
    const start = Date.UTC(year, 0, 1)
    const end = Date.UTC(year + 1, 0, 1)
    const rows = fc.array(
      fc.record({
        createdAt: fc.integer({ min: start - 3_600_000, max: end + 3_600_000 }).map((ms) => new Date(ms)),
        amount: fc.oneof(
          fc.constantFrom(3000, 4000, 4500, 0, -4000),
          fc.integer({ min: -10_000_000, max: 10_000_000 }),
        ),
      }),
      { maxLength: 120 },
    )
    await fc.assert(
      fc.asyncProperty(rows, async (rows) => {
        await db.execute(sql`delete from usages where store_id = ${storeId} and created_at >= '2027-12-01'`)
        if (rows.length) await db.insert(usages).values(rows.map((row) => ({ storeId, ...row })))
        const json = await usage({}, year)
        const v2 = await usage({ accept: usageAccept }, year)
        const { sums, records: recordBytes } = split(v2.rawPayload, year)
        const fromJson = scanCanonical(new Uint8Array(json.rawPayload), year)
        const fromRecords = bucketCompact(recordBytes, year)
        expect(fromRecords).toEqual(fromJson)
        expect(sums.daySums).toEqual(fromRecords.days.flat())
        expect(sums.dayCounts).toEqual(fromRecords.dayCounts.flat())
      }),
      { seed: 25, numRuns: 40 },
    )
  })
})

/** Measured at 7a86b87 (before version 2) with this file's 300 records, through the same calls. */
const GOLDEN = {
  bodies: {
    json: '33458f79e01ddde4cee5f5d5b67d155baf198c6e9a467d698176bf12ab6b85be',
    v1: 'add088cccd4851f47d320d129d483d00b6a43b775ca8a9427cf368022f92c64b',
  },
  etags: { json: 'W/"M0WPeeAd3eTO5fXVtn0VW6"', v1: 'W/"EpKfvNsfguVZG6bmjnuUQy"' },
}
