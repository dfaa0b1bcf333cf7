// The tax export's days (docs/product.md §14, decision 173): Korean calendar days (KST, UTC+9, no daylight
// saving), so a sale at 23:30 UTC on the 31st is the 1st's. A range is `from` to `to` inclusive, at most
// 366 days. One set query a range (index usages_store_created), one row a day that has records.
import { sql } from 'drizzle-orm'
import { type PaymentMethod, paymentMethods } from '../../domain/machines.ts'
import { type Db, queryRows } from '../db/client.ts'

export const maxTaxDays = 366
const dayMs = 86_400_000
const kstOffsetMs = 9 * 3_600_000

/** A day's figures: sales by method, refunds (negative), net, sales counted. */
export interface TaxDay {
  day: string
  methods: Record<PaymentMethod, number>
  refunds: number
  net: number
  count: number
}

/** The day number (days since 1970-01-01) of `YYYY-MM-DD`, or undefined when no such date exists. */
export function dayNumber(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (!match) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const ms = Date.UTC(year, month - 1, day)
  const back = new Date(ms)
  if (
    year < 1 ||
    back.getUTCFullYear() !== year ||
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== day
  )
    return undefined
  return ms / dayMs
}

export const dayText = (day: number) => new Date(day * dayMs).toISOString().slice(0, 10)

/** The instant a Korean day starts. */
export const kstDayStart = (day: number) => new Date(day * dayMs - kstOffsetMs)

const emptyMethods = () =>
  Object.fromEntries(paymentMethods.map((method) => [method, 0])) as Record<PaymentMethod, number>

/** Every day of the range in order, zeros included. */
export async function taxDays(db: Db, storeId: number, from: number, to: number): Promise<TaxDay[]> {
  // One row a day and method (fewer aggregates a row than a column a method: measured faster).
  const rows = await queryRows<{
    day: string | number
    method: string
    sales: string | number
    refunds: string | number
    net: string | number
    count: string | number
  }>(
    db,
    // The Korean day as a day number (a date minus a date is an integer): no DateStyle to depend on.
    sql`select ((created_at at time zone 'UTC') + interval '9 hours')::date - date '1970-01-01' as day,
          coalesce(method, 'other') as method,
          coalesce(sum(amount) filter (where amount >= 0), 0) as sales,
          coalesce(sum(amount) filter (where amount < 0), 0) as refunds,
          sum(amount) as net,
          count(*) filter (where amount >= 0) as count
        from usages
        where store_id = ${storeId} and created_at >= ${kstDayStart(from).toISOString()}
          and created_at < ${kstDayStart(to + 1).toISOString()}
        group by 1, 2`,
  )
  const days = new Map<number, TaxDay>()
  for (let day = from; day <= to; day++)
    days.set(day, { day: dayText(day), methods: emptyMethods(), refunds: 0, net: 0, count: 0 })
  for (const row of rows) {
    const day = days.get(Number(row.day))
    if (!day) continue
    day.methods[row.method as PaymentMethod] += Number(row.sales)
    day.refunds += Number(row.refunds)
    day.net += Number(row.net)
    day.count += Number(row.count)
  }
  return [...days.values()]
}
