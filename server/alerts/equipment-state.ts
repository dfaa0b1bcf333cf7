// What the machine and payment terminal rules read of the stores (docs/product.md §12, decisions 185–188),
// in bulk for the minute's evaluation or for one store after a heartbeat: the machines in error, the
// devices whose terminal is down, and the last 10 minutes' failed payments with since when they count
// (the store's last sale paid through the terminal, or its terminal back to `ok`). Small sets: an error, a terminal down or a failure is rare.
import { type SQL, sql } from 'drizzle-orm'
import type { MachineKind } from '../../domain/machines.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'

/** Failed payments are counted over this long (and only those after the last sale). */
export const failureWindowMs = 10 * 60_000

export interface MachineError {
  /** The devices' name for it (the episode's key) and the name an alert shows (the owner's, else that). */
  machine: string
  name: string
  kind: MachineKind | null
  code: string | null
  since: number
  /** When a later heartbeat said it again; null: one heartbeat only. */
  confirmedAt: number | null
  /** When a heartbeat last named it. */
  reportedAt: number
}

export interface TerminalDown {
  deviceId: number
  device: string
  since: number
  confirmedAt: number | null
  /** The device's last heartbeat. */
  seenAt: number
}

export interface Failures {
  /** The failed payments of the window, oldest first. */
  reports: { at: number; count: number }[]
  /**
   * Since when failures count: the store's last sale paid through the terminal (not cash, coin or point)
   * or the last time a device said its terminal was `ok` again, whichever is later (failures while it was
   * down are that alert's); null: neither ever.
   */
  from: number | null
}

/** One store's machines and payment terminal as the rules read them. */
export interface Equipment {
  machines: MachineError[]
  terminals: TerminalDown[]
  failures: Failures | null
}

export const noEquipment: Equipment = { machines: [], terminals: [], failures: null }

const time = (value: Date | string) => new Date(value).getTime()

/** A sale that went through the terminal: a sale (not a refund) not paid by cash, coin or point. */
export const terminalSaleSql = sql`amount >= 0 and (method is null or method not in ('cash', 'coin', 'point'))`

/** The store's last terminal sale at or before `at` (an index scan from the end, stopping at the first). */
export const lastTerminalSaleSql = (storeId: SQL, at: string) =>
  sql`(select max(created_at) from usages where store_id = ${storeId} and ${terminalSaleSql}
        and created_at <= ${at}::timestamptz)`

/** Each store's equipment at `at` (every store, or the one `storeId`), stores without any left out. */
export async function equipmentByStore(db: Db, at: number, storeId?: number) {
  const now = new Date(at).toISOString()
  const byStore = new Map<number, Equipment>()
  const of = (id: number) => {
    let equipment = byStore.get(id)
    if (!equipment) {
      equipment = { machines: [], terminals: [], failures: null }
      byStore.set(id, equipment)
    }
    return equipment
  }
  const only = (column: SQL) => (storeId === undefined ? sql`true` : sql`${column} = ${storeId}`)
  const machines = await queryRows<{
    store_id: number
    machine: string
    name: string | null
    kind: MachineKind | null
    code: string | null
    state_since: Date | string
    state_confirmed_at: Date | string | null
    reported_at: Date | string
  }>(
    db,
    sql`select store_id, machine, name, coalesce(kind, reported_kind) as kind, code, state_since,
          state_confirmed_at, reported_at
        from machines where state = 'error' and ${only(sql`store_id`)} order by store_id, machine`,
  )
  for (const row of machines)
    of(Number(row.store_id)).machines.push({
      machine: row.machine,
      name: row.name ?? row.machine,
      kind: row.kind,
      code: row.code,
      since: time(row.state_since),
      confirmedAt: row.state_confirmed_at === null ? null : time(row.state_confirmed_at),
      reportedAt: time(row.reported_at),
    })
  const terminals = await queryRows<{
    id: number
    store_id: number
    name: string
    terminal_since: Date | string
    terminal_confirmed_at: Date | string | null
    seen_at: Date | string
  }>(
    db,
    sql`select id, store_id, name, terminal_since, terminal_confirmed_at, coalesce(last_seen_at, paired_at) as seen_at
        from devices where terminal = 'down' and paired_at is not null and revoked_at is null
          and ${only(sql`store_id`)} order by store_id, id`,
  )
  for (const row of terminals)
    of(Number(row.store_id)).terminals.push({
      deviceId: Number(row.id),
      device: row.name,
      since: time(row.terminal_since),
      confirmedAt: row.terminal_confirmed_at === null ? null : time(row.terminal_confirmed_at),
      seenAt: time(row.seen_at),
    })
  await addFailures(db, { now, at, only, of })
  return byStore
}

/** The window's failed payments, and for the stores with 3 or more of them, since when they count. */
async function addFailures(
  db: Db,
  {
    now,
    at,
    only,
    of,
  }: { now: string; at: number; only: (column: SQL) => SQL; of: (id: number) => Equipment },
) {
  const from = new Date(at - failureWindowMs).toISOString()
  const rows = await queryRows<{ store_id: number; at: Date | string; count: number }>(
    db,
    sql`select store_id, at, count from payment_failures
        where at > ${from}::timestamptz and at <= ${now}::timestamptz and ${only(sql`store_id`)}
        order by store_id, at`,
  )
  const reports = new Map<number, { at: number; count: number }[]>()
  for (const row of rows) {
    const list = reports.get(Number(row.store_id)) ?? []
    list.push({ at: time(row.at), count: Number(row.count) })
    reports.set(Number(row.store_id), list)
  }
  const enough = [...reports].filter(([, list]) => list.reduce((sum, report) => sum + report.count, 0) >= 3)
  if (enough.length === 0) return
  const sales = await queryRows<{ id: number; from: Date | string | null }>(
    db,
    sql`select s.id, greatest(${lastTerminalSaleSql(sql`s.id`, now)},
          (select max(terminal_since) from devices where store_id = s.id and terminal = 'ok'
            and terminal_since <= ${now}::timestamptz)) as from
        from unnest(${intArray(enough.map(([id]) => id))}::int[]) as s(id)`,
  )
  const fromOf = new Map(sales.map((row) => [Number(row.id), row.from]))
  for (const [id, list] of enough) {
    const from = fromOf.get(id)
    of(id).failures = { reports: list, from: from ? time(from) : null }
  }
}
