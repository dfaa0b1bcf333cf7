// What the machine-silent rule (domain/machine-silent.ts) reads of the history of the stores' machines, in
// one query: each machine's sales (not refunds) in [from, to), its first sale there, and its runs: the
// sales of the other machines of its kind (its kind now) between two consecutive sales of its, counted at
// 1, 2, 4, … (runs[k]: the runs that reached 2^k). Read once a UTC day by the alert rule, and by the
// machines answer for one store.
import { sql } from 'drizzle-orm'
import { RUN_LEVELS } from '../../domain/machine-silent.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'

export interface MachineHistory {
  storeId: number
  machine: string
  sales: number
  first: number
  runs: number[]
}

/** The runs that reached 1, 2, 4, … as one array: SQL made of constants, no parameter in it. */
const counts = Array.from({ length: RUN_LEVELS }, (_, k) => `count(*) filter (where run >= ${2 ** k})`)
const runCounts = sql.raw(`array[${counts.join(', ')}]::int[]`)

export async function machineHistories(
  db: Db,
  storeIds: readonly number[],
  from: number,
  to: number,
): Promise<MachineHistory[]> {
  const rows = await queryRows<{
    store_id: number
    machine: string
    sales: string | number
    first: Date | string
    runs: (string | number)[]
  }>(
    db,
    sql`with numbered as (
          select u.store_id, u.machine, u.created_at, u.id,
            row_number() over (partition by u.store_id, coalesce(m.kind, m.reported_kind, 'other')
                               order by u.created_at, u.id) as n
          from usages u left join machines m on m.store_id = u.store_id and m.machine = u.machine
          where u.store_id = any(${intArray(storeIds)}::int[]) and u.created_at >= ${new Date(from).toISOString()}::timestamptz
            and u.created_at < ${new Date(to).toISOString()}::timestamptz and u.amount >= 0 and u.machine is not null),
        runs as (
          select store_id, machine, created_at,
            n - lag(n) over (partition by store_id, machine order by n) - 1 as run
          from numbered)
        select store_id, machine, count(*) as sales, min(created_at) as first, ${runCounts} as runs
        from runs group by store_id, machine`,
  )
  return rows.map((row) => ({
    storeId: Number(row.store_id),
    machine: row.machine,
    sales: Number(row.sales),
    first: new Date(row.first).getTime(),
    runs: row.runs.map(Number),
  }))
}
