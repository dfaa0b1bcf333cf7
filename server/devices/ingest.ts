// Stores a device's batch of sales exactly once (docs/product.md §11, decisions 66–68).
//
// One transaction per batch, under a transaction-scoped advisory lock of (device, Idempotency-Key):
//  - the lock is taken with pg_try_: a second request with the same key while the first runs finds it
//    held and is answered 409 at once; a crash or a lost connection ends the transaction and frees it,
//    so a key can never be left stuck "running";
//  - an answered key is a row of device_batches (the hash of its sales and the answer given): the same
//    sales again get that answer again and store nothing; other sales under it are refused (422);
//  - the sales go into usages with the device as their source, `on conflict (device_id,
//    device_sale_id) do nothing`: a sale already stored, by any batch and any key, is counted as a
//    duplicate; a different sale under a stored id is rejected;
//  - a sale's machine and method are stored with it; a refund naming its sale (`refundOf`) is judged
//    and stored after the batch's other sales, under its sale's row lock (refunds.ts, decision 170);
//    the machines the stored sales name get their rows (machines.ts), in the same transaction;
//  - the device's row is updated last, only while it is not revoked (a revoke committed meanwhile
//    rolls the whole batch back: 401), and the answer is stored in the same commit as the sales.
// The insert fires the usages trigger (migrations 0001, 0002), which bumps usage_years' version of
// every store-year the batch wrote, under that row's lock, the one every writer of the store-year
// takes (the CSV import, the admin commands, SQL by hand): the usage answer's ETag and cache change
// with the commit. A batch spanning several years takes those rows' locks in year order first, so two
// such batches cannot deadlock.
import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { SalesAnswer } from '../../contract/api.ts'
import { type GoodSale, type Rejected, saleMessages } from '../../domain/sales.ts'
import { type Db, queryRows } from '../db/client.ts'
import { currentGeneration, generationSubquery } from '../db/generation.ts'
import { deviceBatches } from '../db/schema.ts'
import { upsertSaleMachines } from './machines.ts'
import { storeRefunds } from './refunds.ts'

export type Ingested =
  | { kind: 'answer'; answer: SalesAnswer; replayed: boolean }
  | { kind: 'running' }
  | { kind: 'other-body' }
  | { kind: 'revoked' }

export interface Batch {
  device: { id: number; storeId: number }
  key: string
  /** The sales as sent (the batch's identity: `sentAt` is not part of it). */
  sales: unknown[]
  good: GoodSale[]
  rejected: Rejected[]
  /** Sales repeated within the batch itself. */
  repeated: number
  /** The device's clock minus the server's, when the batch said its `sentAt`. */
  skewMs: number | null
  now: Date
}

export const batchHash = (sales: unknown[]) =>
  createHash('sha256').update(JSON.stringify(sales)).digest('base64url')

class Revoked extends Error {}

/** Takes the batch's store-years' version rows, in year order (made when missing). */
async function lockYears(tx: Db, storeId: number, years: number[]) {
  await tx.execute(
    sql`insert into usage_years (store_id, year)
        select ${storeId}::int, y::int from json_array_elements_text(${JSON.stringify(years)}::json) y(y)
        order by 2 on conflict do nothing`,
  )
  await tx.execute(
    sql`select 1 from usage_years
        where store_id = ${storeId}
          and year in (select y::int from json_array_elements_text(${JSON.stringify(years)}::json) y(y))
        order by year for update`,
  )
}

/** PostgreSQL's deadlock and serialization failures: the transaction may simply run again. */
const retryable = (error: unknown): boolean => {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === '40P01' || e.code === '40001') return true
  return false
}

export async function ingestBatch(db: Db, batch: Batch): Promise<Ingested> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ingestOnce(db, batch)
    } catch (error) {
      if (error instanceof Revoked) return { kind: 'revoked' }
      if (attempt >= 3 || !retryable(error)) throw error
    }
  }
}

async function ingestOnce(db: Db, { device, key, sales, good, rejected, repeated, skewMs, now }: Batch) {
  const hash = batchHash(sales)
  return db.transaction(async (tx): Promise<Ingested> => {
    const [lock] = await queryRows<{ locked: boolean }>(
      tx,
      sql`select pg_try_advisory_xact_lock(${device.id}::int, hashtext(${key})) as locked`,
    )
    if (!lock?.locked) return { kind: 'running' }
    const [prior] = await queryRows<{ body_hash: string; answer: string }>(
      tx,
      sql`select body_hash, answer from device_batches where device_id = ${device.id} and key = ${key}`,
    )
    if (prior) {
      if (prior.body_hash !== hash) return { kind: 'other-body' }
      // The generation as it is now (an answer stored before the field, or before a restore, has another).
      const answer = { ...(JSON.parse(prior.answer) as SalesAnswer), generation: await currentGeneration(tx) }
      return { kind: 'answer', answer, replayed: true }
    }

    const plain = good.filter((sale) => sale.refundOf === null)
    const refunds = good.filter((sale) => sale.refundOf !== null)
    const years = [...new Set(good.map((sale) => Number(sale.createdAt.slice(0, 4))))].sort()
    // Refunds lock the rows of the sales they refund (refunds.ts): the years first, as every batch does.
    if (years.length > 1 || refunds.length > 0) await lockYears(tx, device.storeId, years)

    let duplicates = repeated
    const rejectedNow = [...rejected]
    const stored: GoodSale[] = []
    if (plain.length > 0) {
      const rows = await queryRows<{ id: string; added: boolean; same: boolean | null }>(
        tx,
        sql`with input as (
              select * from json_to_recordset(${JSON.stringify(plain)}::json)
                as r(id text, "createdAt" timestamptz, amount integer, machine text, method text)),
            added as (
              insert into usages (store_id, created_at, amount, device_id, device_sale_id, machine, method)
              select ${device.storeId}, "createdAt", amount, ${device.id}, id, machine, method from input
              on conflict (device_id, device_sale_id) where device_id is not null do nothing
              returning device_sale_id)
            select i.id, a.device_sale_id is not null as added,
              u.created_at = i."createdAt" and u.amount = i.amount and u.machine is not distinct from i.machine
                and u.method is not distinct from i.method and u.refund_of is null as same
            from input i
            left join added a on a.device_sale_id = i.id
            left join usages u on u.device_id = ${device.id} and u.device_sale_id = i.id`,
      )
      const byId = new Map(plain.map((sale) => [sale.id, sale]))
      for (const row of rows) {
        const sent = byId.get(row.id)
        if (row.added && sent) stored.push(sent)
        else if (row.same === false)
          rejectedNow.push({ id: sent?.sentId ?? row.id, message: saleMessages.otherSale })
        else {
          // Stored before (same === true), or by a batch that committed while this one ran, which
          // this statement's snapshot does not show (same === null): either way already there.
          duplicates++
        }
      }
    }
    if (refunds.length > 0) {
      const addedNow = new Set(stored.map((sale) => sale.id))
      const done = await storeRefunds(tx, device, { refunds, good, addedNow })
      stored.push(...done.added)
      duplicates += done.duplicates
      rejectedNow.push(...done.rejected)
    }
    const accepted = stored.length
    let lastSaleAt: string | null = null
    for (const sale of stored)
      if (lastSaleAt === null || sale.createdAt > lastSaleAt) lastSaleAt = sale.createdAt
    await upsertSaleMachines(tx, device.storeId, stored, now)

    const [live] = await queryRows<{ id: number; generation: string }>(
      tx,
      sql`update devices set
            skew_ms = coalesce(${skewMs}::bigint, skew_ms),
            last_sale_at = greatest(last_sale_at, ${lastSaleAt}::timestamptz)
          where id = ${device.id} and revoked_at is null
          returning id, ${generationSubquery} as generation`,
    )
    if (!live) throw new Revoked()

    const answer: SalesAnswer = {
      accepted,
      duplicates,
      rejected: rejectedNow,
      serverTime: now.toISOString(),
      generation: live.generation,
    }
    await tx.insert(deviceBatches).values({
      deviceId: device.id,
      key,
      bodyHash: hash,
      answer: JSON.stringify(answer),
      createdAt: now,
    })
    return { kind: 'answer', answer, replayed: false }
  })
}
