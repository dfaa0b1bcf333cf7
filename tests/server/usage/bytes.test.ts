// Joins the two sides of the canonical usage bytes (contract/usage-bytes.md): the server's real answer,
// built by its SQL from records in the database and fetched through the API, must be read by the web
// app's fast byte scanner without falling back, and give what JSON.parse and a plain bucketing give.

import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerEnd, answerStart } from '../../../contract/usage-bytes.ts'
import { scanCanonical } from '../../../domain/bucketing.ts'
import type { Buckets } from '../../../domain/buckets.ts'
import { addStore, addUser, grant } from '../../../server/db/accounts.ts'
import { usages } from '../../../server/db/schema.ts'
import { bucketExactly } from '../../../src/workers/bucket-exact.ts'
import { bearer, capturedSms, sharedTestApp, signIn, type TestApp } from '../test-app.ts'

const owner = '01012345678'
const sms = capturedSms()
let storeId = 0

async function setup(app: TestApp) {
  await addUser(app.db, { phone: owner, name: '김사장' })
  storeId = await addStore(app.db, { name: '역삼점' })
  await grant(app.db, owner, storeId, 'owner')
}

const current = sharedTestApp({ sms, setup })

type Row = { createdAt: Date; amount: number }

/** Replaces the store's records (a delete, so the trigger moves the version and no old answer is kept). */
async function storeRecords(rows: readonly Row[]) {
  await current.app.db.execute(sql`delete from usages`)
  if (rows.length > 0) await current.app.db.insert(usages).values(rows.map((row) => ({ storeId, ...row })))
}

/** The bytes the browser receives (no Accept-Encoding, so no compression to undo). */
async function answerBytes(access: string, year: number): Promise<Uint8Array> {
  const response = await current.app.inject({
    method: 'GET',
    url: `/api/v0/store/${storeId}/usage?year=${year}`,
    headers: bearer(access),
  })
  expect(response.statusCode).toBe(200)
  return new Uint8Array(response.rawPayload)
}

/** The sums in a form both bucketings can be compared in: every day that is not zero, by `month-day`. */
type Sums = {
  months: number[]
  days: Record<string, number>
  total: number
  records: number
  skipped: number
}

/** The obviously correct bucketing: JSON.parse, a Date per record, and its UTC calendar fields. */
function plainSums(bytes: Uint8Array, year: number): Sums {
  const answer = JSON.parse(new TextDecoder().decode(bytes)) as {
    usages: { createdAt: string; amount: number }[]
  }
  const sums: Sums = { months: Array<number>(12).fill(0), days: {}, total: 0, records: 0, skipped: 0 }
  for (const { createdAt, amount } of answer.usages) {
    const date = new Date(createdAt)
    if (date.getUTCFullYear() !== year) {
      sums.skipped++
      continue
    }
    const day = `${date.getUTCMonth() + 1}-${date.getUTCDate()}`
    sums.months[date.getUTCMonth()] = (sums.months[date.getUTCMonth()] ?? 0) + amount
    sums.days[day] = (sums.days[day] ?? 0) + amount
    sums.total += amount
    sums.records++
  }
  for (const [day, sum] of Object.entries(sums.days)) if (sum === 0) delete sums.days[day]
  return sums
}

function sumsOf({ months, days, total, records, skipped }: Buckets): Sums {
  const nonZero: Record<string, number> = {}
  days.forEach((month, m) => {
    month.forEach((sum, d) => {
      if (sum !== 0) nonZero[`${m + 1}-${d + 1}`] = sum
    })
  })
  return { months, days: nonZero, total, records, skipped }
}

/** Reads the answer on the fast path, failing the test if the scanner gives up on the server's bytes. */
function scanned(bytes: Uint8Array, year: number): Buckets {
  const buckets = scanCanonical(bytes, year)
  if (!buckets) {
    const text = new TextDecoder().decode(bytes)
    throw new Error(`the fast path fell back on the server's answer: ${text.slice(0, 300)}`)
  }
  return buckets
}

function expectAgreement(bytes: Uint8Array, year: number, rows: readonly Row[]) {
  const fast = scanned(bytes, year)
  expect(fast).toEqual(bucketExactly(bytes, year))
  expect(sumsOf(fast)).toEqual(plainSums(bytes, year))
  // The server answers only the asked year, and every record of it.
  const inYear = rows.filter((row) => row.createdAt.getUTCFullYear() === year)
  expect(fast.records).toBe(inYear.length)
  expect(fast.skipped).toBe(0)
  expect(fast.total).toBe(inYear.reduce((sum, row) => sum + row.amount, 0))
}

const utc = (year: number, month = 1, day = 1) => Date.UTC(year, month - 1, day)
/** The database's bounds on an amount (usages_amount_range). */
const maxAmount = 10_000_000

const amount = fc.oneof(
  fc.constantFrom(0, 1, -1, maxAmount, maxAmount - 1, -maxAmount),
  fc.integer({ min: -maxAmount, max: maxAmount }),
)

/** An instant near the asked year: often on its edges, sometimes just outside it, any millisecond. */
const instant = (year: number) =>
  fc
    .oneof(
      fc.constantFrom(
        utc(year),
        utc(year) + 1,
        utc(year) - 1,
        utc(year + 1) - 1,
        utc(year + 1),
        utc(year, 3) - 1, // the last instant of February
        utc(year, 3),
      ),
      fc.integer({ min: utc(year) - 86_400_000, max: utc(year + 1) + 86_400_000 }),
      fc.integer({ min: utc(year), max: utc(year + 1) - 1 }),
    )
    .map((ms) => new Date(ms))

const yearAndRows = fc
  .constantFrom(2000, 2024, 2025, 2026, 2027, 2099, 2100)
  .chain((year) =>
    fc.tuple(
      fc.constant(year),
      fc.array(fc.record({ createdAt: instant(year), amount }), { maxLength: 120 }),
    ),
  )

describe('the canonical usage bytes: server answer → fast byte scanner', () => {
  it('scans an empty year on the fast path', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const bytes = await answerBytes(access, 2026)
    expect(new TextDecoder().decode(bytes)).toBe(`${answerStart}${answerEnd}`)
    expectAgreement(bytes, 2026, [])
  })

  it('scans the edges on the fast path: zero and the largest amount, year boundaries, milliseconds, Feb 29', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const rows: Row[] = [
      { createdAt: new Date('2023-12-31T23:59:59.999Z'), amount: 1 },
      { createdAt: new Date('2024-01-01T00:00:00.000Z'), amount: 0 },
      { createdAt: new Date('2024-01-01T00:00:00.001Z'), amount: maxAmount },
      { createdAt: new Date('2024-02-29T12:34:56.789Z'), amount: 9_999_999 },
      { createdAt: new Date('2024-02-29T23:59:59.999Z'), amount: 10 },
      { createdAt: new Date('2024-03-01T00:00:00.000Z'), amount: 100 },
      { createdAt: new Date('2024-12-31T23:59:59.999Z'), amount: 4000 },
      { createdAt: new Date('2025-01-01T00:00:00.000Z'), amount: 5000 },
    ]
    await storeRecords(rows)
    const bytes = await answerBytes(access, 2024)
    expectAgreement(bytes, 2024, rows)
    const fast = scanned(bytes, 2024)
    expect(fast.months[1]).toBe(9_999_999 + 10)
    expect(fast.days[0]?.[0]).toBe(maxAmount)
    expect(fast.days[11]?.[30]).toBe(4000)
    expect(fast.total).toBe(maxAmount + 9_999_999 + 10 + 100 + 4000)
  })

  it('keeps amounts from -10,000,000 to 10,000,000 (a device may post a refund, decision 68)', async () => {
    await expect(
      current.app.db
        .insert(usages)
        .values({ storeId, createdAt: new Date('2026-03-01T00:00:00Z'), amount: -maxAmount - 1 }),
    ).rejects.toThrow()
    await expect(
      current.app.db
        .insert(usages)
        .values({ storeId, createdAt: new Date('2026-03-01T00:00:00Z'), amount: maxAmount + 1 }),
    ).rejects.toThrow()
  })

  it('scans int32-sized amounts on the fast path, should the database ever allow them', async () => {
    // The database keeps -10,000,000 to 10,000,000 (a negative amount is a refund, docs/product.md §3).
    // Without the range, the column's own type bounds what the server's SQL can write.
    const { access } = await signIn(current.app, sms, owner)
    const db = current.app.db
    await db.execute(sql`delete from usages`)
    await db.execute(sql`alter table usages drop constraint usages_amount_range`)
    try {
      const int32 = fc.oneof(
        fc.constantFrom(-1, -maxAmount, 2_147_483_647, -2_147_483_648),
        fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }),
      )
      const rows = fc.array(fc.record({ createdAt: instant(2026), amount: int32 }), {
        minLength: 1,
        maxLength: 60,
      })
      await fc.assert(
        fc.asyncProperty(rows, async (generated) => {
          await storeRecords(generated)
          const bytes = await answerBytes(access, 2026)
          expectAgreement(bytes, 2026, generated)
        }),
        { numRuns: 30 },
      )
    } finally {
      await db.execute(sql`delete from usages`)
      await db.execute(
        sql`alter table usages add constraint usages_amount_range check (amount between -10000000 and 10000000)`,
      )
    }
  })

  it('scans a large year of records on the fast path', async () => {
    const { access } = await signIn(current.app, sms, owner)
    const rows: Row[] = Array.from({ length: 5000 }, (_, i) => ({
      createdAt: new Date(utc(2026) + i * 6_311_111 + (i % 1000)),
      amount: (i * 7919) % (maxAmount + 1),
    }))
    await storeRecords(rows)
    expectAgreement(await answerBytes(access, 2026), 2026, rows)
  })

  it('scans random records on the fast path, equal to JSON.parse and a plain bucketing', async () => {
    const { access } = await signIn(current.app, sms, owner)
    await fc.assert(
      fc.asyncProperty(yearAndRows, async ([year, rows]) => {
        await storeRecords(rows)
        expectAgreement(await answerBytes(access, year), year, rows)
      }),
      { numRuns: 100 },
    )
  })
})
