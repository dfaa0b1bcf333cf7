// The store's machines as its devices name them (docs/product.md §14): a row appears when a stored sale
// or a heartbeat first names a machine; a sale moves its `last_sale_at` (refunds do not: decision 172), a
// heartbeat its state. Set-based: one statement for a batch, rows taken in name order (two batches of one
// store never wait on each other in a circle).
import { sql } from 'drizzle-orm'
import type { MachineReport } from '../../contract/machines.ts'
import type { GoodSale } from '../../domain/sales.ts'
import { type Db, queryRows } from '../db/client.ts'

/** The machines of a batch's stored sales: made when new, their newest sale (not a refund) kept. */
export async function upsertSaleMachines(tx: Db, storeId: number, stored: GoodSale[], now: Date) {
  const named = stored
    .filter((sale) => sale.machine !== null)
    .map(({ machine, createdAt, amount }) => ({ machine, createdAt, amount }))
  if (named.length === 0) return
  await tx.execute(
    sql`insert into machines (store_id, machine, first_seen_at, last_sale_at)
        select ${storeId}::int, m.machine, ${now.toISOString()}::timestamptz,
          max(m."createdAt") filter (where m.amount >= 0)
        from json_to_recordset(${JSON.stringify(named)}::json) as m(machine text, "createdAt" timestamptz, amount integer)
        group by m.machine
        order by m.machine
        on conflict (store_id, machine) do update
          set last_sale_at = greatest(machines.last_sale_at, excluded.last_sale_at)`,
  )
}

/**
 * A state reported again at least this long after it began is confirmed (decision 185): two heartbeats
 * (60 s apart) in a row, and never a request repeated at once.
 */
export const confirmAfter = '30 seconds'

/**
 * A heartbeat's machines: state, code (with `error` only), reported kind, the device and the time; the
 * state's since moves only when the state changes, and its confirmation is the first later report of the
 * same state (at least `confirmAfter` after it began); a new row is first seen now. Answers how many
 * errors this heartbeat confirmed.
 */
export async function reportMachines(
  tx: Db,
  device: { id: number; storeId: number },
  reports: MachineReport[],
  now: Date,
): Promise<number> {
  if (reports.length === 0) return 0
  const rows = reports.map((report) => ({
    machine: report.machine,
    state: report.state,
    code: report.state === 'error' ? (report.code ?? null) : null,
    kind: report.kind ?? null,
  }))
  const at = now.toISOString()
  const confirmed = await queryRows<{ confirmed: boolean }>(
    tx,
    sql`insert into machines (store_id, machine, state, state_since, code, reported_kind, device_id, reported_at, first_seen_at)
        select distinct on (m.machine) ${device.storeId}::int, m.machine, m.state, ${at}::timestamptz, m.code,
          m.kind, ${device.id}::int, ${at}::timestamptz, ${at}::timestamptz
        from json_to_recordset(${JSON.stringify(rows)}::json) as m(machine text, state text, code text, kind text)
        order by m.machine
        on conflict (store_id, machine) do update set
          state = excluded.state,
          state_since = case when machines.state is distinct from excluded.state
            then excluded.state_since else machines.state_since end,
          state_confirmed_at = case when machines.state is distinct from excluded.state then null
            when machines.state_confirmed_at is null
              and excluded.reported_at >= machines.state_since + ${confirmAfter}::interval
              then excluded.reported_at
            else machines.state_confirmed_at end,
          code = excluded.code,
          reported_kind = coalesce(excluded.reported_kind, machines.reported_kind),
          device_id = excluded.device_id,
          reported_at = excluded.reported_at
        returning (machines.state = 'error' and machines.state_confirmed_at = ${at}::timestamptz) as confirmed`,
  )
  return confirmed.filter((row) => row.confirmed).length
}
