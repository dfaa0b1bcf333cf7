// A batch's refunds that name the sale they refund (docs/product.md §14, decision 170), stored after the
// batch's other sales (so a sale earlier in the batch is there to be refunded). Race-free across batches
// of one device under different Idempotency-Keys (tests/server/devices/refunds.postgres.test.ts):
//  - a batch with refunds first takes its store-years' version rows (ingest.ts, in year order), then the
//    refunded sales' rows `for update` in id order: two batches refunding one sale take turns, and the
//    second one's next statement sees the first one's refunds (READ COMMITTED: a new snapshot per
//    statement), so the refunds of one sale never exceed it together; the order (years, then rows, each
//    sorted) is the same in every batch, so no two wait on each other in a circle;
//  - one statement then reads the refunded sales (amount, machine, method, what is refunded of them
//    already) and the refunds already stored under the batch's ids; the refunds are judged in the
//    batch's order; one statement inserts those accepted.
import { sql } from 'drizzle-orm'
import { type GoodSale, type Rejected, saleMessages } from '../../domain/sales.ts'
import { type Db, queryRows } from '../db/client.ts'

interface Original {
  id: string
  amount: number
  machine: string | null
  method: string | null
  refunded: string
}

interface StoredRefund {
  id: string
  created_at: string
  amount: number
  machine: string | null
  method: string | null
  refund_of: string | null
}

export interface StoredRefunds {
  /** The refunds stored by this batch, with the machine and method they took from their sale. */
  added: GoodSale[]
  duplicates: number
  rejected: Rejected[]
}

/**
 * Stores `refunds` (the batch's good sales with a `refundOf`) for `device`; `good` is the whole batch in
 * its order, `addedNow` the ids of its other sales this batch has just stored.
 */
export async function storeRefunds(
  tx: Db,
  device: { id: number; storeId: number },
  { refunds, good, addedNow }: { refunds: GoodSale[]; good: GoodSale[]; addedNow: Set<string> },
): Promise<StoredRefunds> {
  const originalIds = JSON.stringify([...new Set(refunds.map((sale) => sale.refundOf))].sort())
  await tx.execute(
    sql`select 1 from usages
        where device_id = ${device.id}
          and device_sale_id in (select json_array_elements_text(${originalIds}::json))
        order by device_sale_id for update`,
  )
  const rows = await queryRows<(Original & { kind: 'original' }) | (StoredRefund & { kind: 'stored' })>(
    tx,
    sql`select 'original' as kind, o.device_sale_id as id, o.amount, o.machine, o.method,
          (select coalesce(sum(r.amount), 0) from usages r
           where r.device_id = ${device.id} and r.refund_of = o.device_sale_id)::text as refunded,
          null::timestamptz as created_at, null::text as refund_of
        from usages o
        where o.device_id = ${device.id}
          and o.device_sale_id in (select json_array_elements_text(${originalIds}::json))
        union all
        select 'stored', u.device_sale_id, u.amount, u.machine, u.method, null, u.created_at, u.refund_of
        from usages u
        where u.device_id = ${device.id}
          and u.device_sale_id in (select json_array_elements_text(${JSON.stringify(refunds.map((sale) => sale.id))}::json))`,
  )
  const originals = new Map<string, Original>()
  const stored = new Map<string, StoredRefund>()
  for (const row of rows)
    if (row.kind === 'original') originals.set(row.id, row)
    else stored.set(row.id, row)

  const position = new Map(good.map((sale, index) => [sale.id, index]))
  // A refund of this batch is not stored yet when another one names it: still a refund of a refund.
  const batchAmount = new Map(good.map((sale) => [sale.id, sale.amount]))
  const refundedNow = new Map<string, number>()
  const accepted: GoodSale[] = []
  const rejected: Rejected[] = []
  let duplicates = 0
  for (const refund of refunds) {
    const original = originals.get(refund.refundOf as string)
    // A refund naming no machine or method takes its sale's.
    const sale = {
      ...refund,
      machine: refund.machine ?? original?.machine ?? null,
      method: refund.method ?? (original?.method as GoodSale['method']) ?? null,
    }
    const reject = (message: string) => rejected.push({ id: refund.sentId, message })
    const before = stored.get(refund.id)
    if (before) {
      if (sameAsStored(sale, before)) duplicates++
      else reject(saleMessages.otherSale)
      continue
    }
    // A sale this batch stored counts only when it came before the refund in the batch.
    const laterInBatch =
      original !== undefined &&
      addedNow.has(original.id) &&
      (position.get(original.id) ?? 0) > (position.get(refund.id) ?? 0)
    if (!original && (batchAmount.get(refund.refundOf as string) ?? 0) < 0)
      reject(saleMessages.refundOfRefund)
    else if (!original || laterInBatch) reject(saleMessages.refundUnknown)
    else if (original.amount < 0) reject(saleMessages.refundOfRefund)
    else {
      const left = original.amount + Number(original.refunded) + (refundedNow.get(original.id) ?? 0)
      if (left + refund.amount < 0) reject(saleMessages.refundTooLarge)
      else {
        refundedNow.set(original.id, (refundedNow.get(original.id) ?? 0) + refund.amount)
        accepted.push(sale)
      }
    }
  }
  if (accepted.length === 0) return { added: [], duplicates, rejected }

  const inserted = await queryRows<{ id: string }>(
    tx,
    sql`insert into usages (store_id, created_at, amount, device_id, device_sale_id, machine, method, refund_of)
        select ${device.storeId}, "createdAt", amount, ${device.id}, id, machine, method, "refundOf"
        from json_to_recordset(${JSON.stringify(accepted)}::json)
          as r(id text, "createdAt" timestamptz, amount integer, machine text, method text, "refundOf" text)
        on conflict (device_id, device_sale_id) where device_id is not null do nothing
        returning device_sale_id as id`,
  )
  const addedIds = new Set(inserted.map((row) => row.id))
  // Not inserted: stored meanwhile by a batch this one's snapshot did not show: already there.
  duplicates += accepted.length - addedIds.size
  return { added: accepted.filter((sale) => addedIds.has(sale.id)), duplicates, rejected }
}

const sameAsStored = (sale: GoodSale, row: StoredRefund) =>
  new Date(row.created_at).toISOString() === sale.createdAt &&
  row.amount === sale.amount &&
  row.machine === sale.machine &&
  row.method === sale.method &&
  row.refund_of === sale.refundOf
