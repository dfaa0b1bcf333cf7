// The machines answer and the tax export against a slow, obviously correct reference over random records
// placed around UTC and Korean day and month boundaries (docs/product.md §14, decisions 172 and 173):
// per machine, per method, refunds, net and counts; and methods plus refunds equal the month total the
// usage answer gives.
import fc from 'fast-check'
import { expect, it } from 'vitest'
import type { MachinesAnswer } from '../../../contract/machines.ts'
import { type PaymentMethod, paymentMethods } from '../../../domain/machines.ts'
import { bearer, sharedTestApp, testClock } from '../test-app.ts'
import {
  clearStore,
  csvRows,
  insertMachines,
  insertRecords,
  type RecordIn,
  storeWithPeople,
} from './helpers.ts'

const clock = testClock('2026-02-28T20:00:00.000Z')
let people: Awaited<ReturnType<typeof storeWithPeople>>
const current = sharedTestApp({
  clock,
  setup: async (app) => {
    people = await storeWithPeople(app)
  },
})

const rowMachines = ['W1', 'W2', 'W10', 'D1']
const boundaries = [
  '2025-12-31T14:59:59.999Z',
  '2025-12-31T15:00:00.000Z',
  '2026-01-01T00:00:00.000Z',
  '2026-01-31T14:59:59.999Z',
  '2026-01-31T15:00:00.000Z',
  '2026-01-31T23:30:00.000Z',
  '2026-01-31T23:59:59.999Z',
  '2026-02-01T00:00:00.000Z',
  '2026-02-28T14:59:59.999Z',
  '2026-02-28T15:00:00.000Z',
  '2026-02-28T20:00:00.000Z',
  '2026-02-28T23:59:59.999Z',
  '2026-03-01T00:00:00.000Z',
  '2026-03-01T14:59:59.999Z',
  '2026-03-01T15:00:00.000Z',
]
const first = Date.parse('2025-12-31T00:00:00Z')
const last = Date.parse('2026-03-02T23:59:59.999Z')

const record: fc.Arbitrary<RecordIn> = fc.record({
  at: fc.oneof(
    fc.constantFrom(...boundaries),
    fc.integer({ min: first, max: last }).map((ms) => new Date(ms).toISOString()),
  ),
  amount: fc.oneof(
    fc.integer({ min: 0, max: 20_000 }),
    fc.integer({ min: -20_000, max: -1 }),
    fc.constant(0),
  ),
  // X9 has records but no machine row: it is in no row, as a record naming none.
  machine: fc.constantFrom(null, 'X9', ...rowMachines),
  method: fc.constantFrom(null, ...paymentMethods),
  fromDevice: fc.boolean(),
  refundOf: fc.constantFrom(null, 's0'),
})

const utcMonth = (at: string) => at.slice(0, 7)
const utcDay = (at: string) => at.slice(0, 10)
const kstDay = (at: string) => new Date(Date.parse(at) + 9 * 3_600_000).toISOString().slice(0, 10)

/** The machines answer as the rules say it, record by record. */
function expectedAnswer(records: RecordIn[], month: string, now: string) {
  const inMonth = records.filter((r) => utcMonth(r.at) === month)
  const totals = (list: RecordIn[], sales: boolean) => ({
    sum: list.reduce((sum, r) => sum + r.amount, 0),
    count: list.filter((r) => (sales ? r.amount >= 0 : r.amount < 0)).length,
  })
  const machines = Object.fromEntries(
    rowMachines.map((machine) => {
      const own = inMonth.filter((r) => r.machine === machine)
      return [
        machine,
        {
          month: totals(own, true),
          today: totals(
            own.filter((r) => utcDay(r.at) === utcDay(now)),
            true,
          ),
          refunds: totals(
            own.filter((r) => r.amount < 0),
            false,
          ),
        },
      ]
    }),
  )
  const methods = paymentMethods.map((method) => {
    const sales = inMonth.filter((r) => r.amount >= 0 && (r.method ?? 'other') === method)
    return { method, ...totals(sales, true) }
  })
  return {
    machines,
    methods,
    refunds: totals(
      inMonth.filter((r) => r.amount < 0),
      false,
    ),
  }
}

/** The export's rows as the rules say them: every Korean day from `from` to `to`, then the totals. */
function expectedCsv(records: RecordIn[], from: string, to: string): string[][] {
  const rows: string[][] = [
    ['날짜', '카드', '현금', '동전', '간편결제', '포인트', '기타', '환불', '순매출', '건수'],
  ]
  const total = new Array<number>(9).fill(0)
  for (let day = Date.parse(from); day <= Date.parse(to); day += 86_400_000) {
    const text = new Date(day).toISOString().slice(0, 10)
    const own = records.filter((r) => kstDay(r.at) === text)
    const sales = own.filter((r) => r.amount >= 0)
    const by = (method: PaymentMethod) =>
      sales.filter((r) => (r.method ?? 'other') === method).reduce((sum, r) => sum + r.amount, 0)
    const figures = [
      ...paymentMethods.map(by),
      own.filter((r) => r.amount < 0).reduce((sum, r) => sum + r.amount, 0),
      own.reduce((sum, r) => sum + r.amount, 0),
      sales.length,
    ]
    figures.forEach((value, i) => {
      total[i] = (total[i] ?? 0) + value
    })
    rows.push([text, ...figures.map(String)])
  }
  rows.push(['합계', ...total.map(String)])
  return rows
}

it('answers every machine, method and refund, and the Korean days, as the reference does', async () => {
  const { app } = current
  await fc.assert(
    fc.asyncProperty(
      fc.array(record, { maxLength: 60 }),
      fc.constantFrom('2026-02-28T20:00:00.000Z', '2026-01-31T23:30:00.000Z', '2026-02-01T00:00:00.000Z'),
      async (records, now) => {
        await clearStore(app, people.storeId)
        await insertMachines(
          app,
          people.storeId,
          rowMachines.map((machine) => ({ machine })),
        )
        await insertRecords(app, people.storeId, people.deviceId, records)
        clock.set(now)
        const year = (
          await app.inject({
            url: `/api/v0/store/${people.storeId}/usage?year=2026`,
            headers: bearer(people.owner),
          })
        ).json() as { usages: { createdAt: string; amount: number }[] }
        for (const month of ['2026-01', '2026-02']) {
          const response = await app.inject({
            url: `/api/v0/store/${people.storeId}/machines?year=2026&month=${Number(month.slice(5))}`,
            headers: bearer(people.staff),
          })
          expect(response.statusCode).toBe(200)
          const answer = response.json() as MachinesAnswer
          const expected = expectedAnswer(records, month, now)
          expect(answer.at).toBe(now)
          expect(Object.fromEntries(answer.machines.map((m) => [m.machine, m]))).toMatchObject(
            expected.machines,
          )
          expect(answer.methods).toEqual(expected.methods)
          expect(answer.refunds).toEqual(expected.refunds)
          // The identity: methods plus refunds is the month's net total as the usage answer counts it.
          const usageTotal = year.usages
            .filter((u) => utcMonth(u.createdAt) === month)
            .reduce((sum, u) => sum + u.amount, 0)
          expect(
            answer.methods.reduce((sum, m) => sum + (m.sum ?? Number.NaN), 0) +
              (answer.refunds.sum ?? Number.NaN),
          ).toBe(usageTotal)
        }
        for (const [from, to] of [
          ['2026-01-01', '2026-03-01'],
          ['2026-02-01', '2026-02-01'],
        ] as const) {
          const exported = await app.inject({
            url: `/api/v0/store/${people.storeId}/export/tax.csv?from=${from}&to=${to}`,
            headers: bearer(people.owner),
          })
          expect(exported.statusCode).toBe(200)
          expect(csvRows(exported.rawPayload)).toEqual(expectedCsv(records, from, to))
        }
      },
    ),
    { numRuns: 25 },
  )
})
