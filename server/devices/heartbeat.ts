// A device's heartbeat: the sales waiting in its queue, its clock's skew when it sends `sentAt`, and
// what it says of the store (docs/product.md §14, decision 171): its machines' states, its payment
// terminal, the payments that failed since its last heartbeat; a state said again by a later heartbeat
// is confirmed (decision 185), and the answer says when the alert rules should look now. One transaction: a device revoked since
// is refused (null) and nothing is kept. Being seen is recorded by the key's check (auth.ts); the answer
// tells the database's generation (server/db/generation.ts).
import { sql } from 'drizzle-orm'
import type { MachineReport } from '../../contract/machines.ts'
import type { TerminalState } from '../../domain/machines.ts'
import { type Db, queryRows } from '../db/client.ts'
import { generationSubquery } from '../db/generation.ts'
import { confirmAfter, reportMachines } from './machines.ts'

export interface Heartbeat {
  device: { id: number; storeId: number }
  pending: number
  skewMs: number | null
  machines?: MachineReport[] | undefined
  terminal?: TerminalState | undefined
  failedPayments?: number | undefined
  now: Date
}

export async function recordHeartbeat(db: Db, beat: Heartbeat) {
  const { device, pending, skewMs, now } = beat
  const terminal = beat.terminal ?? null
  const at = now.toISOString()
  return db.transaction(async (tx) => {
    // The terminal's state is confirmed by a later heartbeat saying it again (decision 185).
    const [row] = await queryRows<{ id: number; generation: string; terminal_confirmed: boolean }>(
      tx,
      sql`update devices set pending = ${pending}, skew_ms = coalesce(${skewMs}::bigint, skew_ms),
            terminal_since = case when ${terminal}::text is not null and terminal is distinct from ${terminal}::text
              then ${at}::timestamptz else terminal_since end,
            terminal_confirmed_at = case when ${terminal}::text is null then terminal_confirmed_at
              when terminal is distinct from ${terminal}::text then null
              when terminal_confirmed_at is null and ${at}::timestamptz >= terminal_since + ${confirmAfter}::interval
                then ${at}::timestamptz
              else terminal_confirmed_at end,
            terminal = coalesce(${terminal}::text, terminal)
          where id = ${device.id} and revoked_at is null
          returning id, ${generationSubquery} as generation,
            (terminal = 'down' and terminal_confirmed_at = ${at}::timestamptz) as terminal_confirmed`,
    )
    if (!row) return null
    const confirmedErrors = await reportMachines(tx, device, beat.machines ?? [], now)
    if (beat.failedPayments)
      await tx.execute(
        sql`insert into payment_failures (store_id, device_id, at, count)
            values (${device.storeId}, ${device.id}, ${at}::timestamptz, ${beat.failedPayments})`,
      )
    return {
      generation: row.generation,
      // What the alert rules should look at now rather than at the minute's evaluation.
      alerting: row.terminal_confirmed || confirmedErrors > 0 || (beat.failedPayments ?? 0) > 0,
    }
  })
}
