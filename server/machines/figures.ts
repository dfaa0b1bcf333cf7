// A store's month in figures by machine and by payment method (docs/product.md §14, decision 172): a
// record is a sale when its amount is 0 or more, a refund when below. One set query over the
// store's month (index usages_store_created), whatever the number of machines.
import { sql } from 'drizzle-orm'
import { type PaymentMethod, paymentMethods } from '../../domain/machines.ts'
import { type Db, queryRows } from '../db/client.ts'

export interface Totals {
  sum: number
  count: number
}

export interface MachineFigures {
  /** The month net of refunds, and its sales counted (refunds not). */
  month: Totals
  /** The same for the UTC day asked (zero outside the month). */
  today: Totals
  /** The month's refunds: their sum (negative) and count. */
  refunds: Totals
}

export interface MonthFigures {
  /** By the machine a record names; records naming none are in no entry. */
  machines: Map<string, MachineFigures>
  /** The month's sales by method, every method, in `paymentMethods` order; no method counts as `other`. */
  methods: { method: PaymentMethod; sum: number; count: number }[]
  /** Every refund of the month, whichever machine. */
  refunds: Totals
}

export interface MonthAsked {
  storeId: number
  year: number
  /** 1–12. */
  month: number
  /** The UTC day counted as today: [start, start + 1 day); outside the month it counts nothing. */
  dayStart: Date
  /** Only this machine's entry (the rest of the answer is still the store's). */
  machine?: string
}

const zero = (): Totals => ({ sum: 0, count: 0 })
const dayMs = 86_400_000

interface FiguresRow {
  machine: string | null
  method: string
  no_machine: string | number
  no_method: string | number
  sales_sum: string | number
  month_sum: string | number
  month_count: string | number
  today_sum: string | number
  today_count: string | number
  refund_sum: string | number
  refund_count: string | number
}

export async function monthFigures(db: Db, asked: MonthAsked): Promise<MonthFigures> {
  const from = new Date(Date.UTC(asked.year, asked.month - 1, 1)).toISOString()
  const to = new Date(Date.UTC(asked.year, asked.month, 1)).toISOString()
  const dayFrom = asked.dayStart.toISOString()
  const dayTo = new Date(asked.dayStart.getTime() + dayMs).toISOString()
  const today = sql`created_at >= ${dayFrom} and created_at < ${dayTo}`
  // Grouping sets, one pass over the month: a row a machine (a null machine is the records naming
  // none), a row a method (sales only), and the whole store (whose refunds are the store's).
  const rows = await queryRows<FiguresRow>(
    db,
    sql`select machine, coalesce(method, 'other') as method,
          grouping(machine) as no_machine, grouping(coalesce(method, 'other')) as no_method,
          coalesce(sum(amount), 0) as month_sum,
          count(*) filter (where amount >= 0) as month_count,
          coalesce(sum(amount) filter (where amount >= 0), 0) as sales_sum,
          coalesce(sum(amount) filter (where ${today}), 0) as today_sum,
          count(*) filter (where amount >= 0 and ${today}) as today_count,
          coalesce(sum(amount) filter (where amount < 0), 0) as refund_sum,
          count(*) filter (where amount < 0) as refund_count
        from usages
        where store_id = ${asked.storeId} and created_at >= ${from} and created_at < ${to}
        group by grouping sets ((machine), (coalesce(method, 'other')), ())`,
  )
  const machines = new Map<string, MachineFigures>()
  const byMethod = new Map<string, Totals>()
  let refunds = zero()
  const totals = (sum: string | number, count: string | number) => ({
    sum: Number(sum),
    count: Number(count),
  })
  for (const row of rows) {
    const wholeMachines = Number(row.no_machine) === 1
    const wholeMethods = Number(row.no_method) === 1
    if (wholeMachines && wholeMethods) refunds = totals(row.refund_sum, row.refund_count)
    else if (wholeMachines) byMethod.set(row.method, totals(row.sales_sum, row.month_count))
    else if (row.machine !== null && (asked.machine === undefined || row.machine === asked.machine))
      machines.set(row.machine, {
        month: totals(row.month_sum, row.month_count),
        today: totals(row.today_sum, row.today_count),
        refunds: totals(row.refund_sum, row.refund_count),
      })
  }
  const methods = paymentMethods.map((method) => ({ method, ...(byMethod.get(method) ?? zero()) }))
  return { machines, methods, refunds }
}

export const noFigures = (): MachineFigures => ({ month: zero(), today: zero(), refunds: zero() })
