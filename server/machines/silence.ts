// What the machine-silent rule (domain/machine-silent.ts) reads of a store's machines, for the machines
// answer, so the machines section flags a silent machine by the very rule the alert runs: each machine's
// sales and runs in the HISTORY_DAYS UTC days before now's day (server/machines/runs.ts), and the sales
// of the other machines of its kind since its last sale (counted up to a cap, as the alert rule counts
// them). Two queries.
import { sql } from 'drizzle-orm'
import { dayMs, startOfDay } from '../../domain/calendar.ts'
import { HISTORY_DAYS } from '../../domain/machine-silent.ts'
import { type Db, queryRows } from '../db/client.ts'
import { machineHistories } from './runs.ts'

/** The others' sales are counted up to this many (the alert rule's cap). */
export const OTHERS_COUNT_CAP = 2000

export interface MachinesSilence {
  machines: Map<string, { historySales: number; othersSince: number; runs?: number[] }>
  /** The days the history counts cover. */
  days: number
}

export async function machinesSilence(db: Db, storeId: number, now: Date): Promise<MachinesSilence> {
  const day = startOfDay(now.getTime())
  const [histories, rows] = await Promise.all([
    machineHistories(db, [storeId], day - HISTORY_DAYS * dayMs, day),
    queryRows<{ machine: string; others: string | number }>(
      db,
      sql`select m.machine,
          case when m.last_sale_at is null then 0 else
            (select count(*) from (select 1 from usages u
               join machines o on o.store_id = u.store_id and o.machine = u.machine
               where u.store_id = m.store_id and u.created_at > m.last_sale_at and u.amount >= 0
                 and o.machine <> m.machine
                 and coalesce(o.kind, o.reported_kind, 'other') = coalesce(m.kind, m.reported_kind, 'other')
               limit ${OTHERS_COUNT_CAP}) as s) end as others
        from machines m where m.store_id = ${storeId}`,
    ),
  ])
  const history = new Map(histories.map((h) => [h.machine, h]))
  const machines: MachinesSilence['machines'] = new Map()
  for (const row of rows) {
    const read = history.get(row.machine)
    machines.set(row.machine, {
      historySales: read?.sales ?? 0,
      othersSince: Number(row.others),
      ...(read ? { runs: read.runs } : {}),
    })
  }
  const first = histories.reduce<number | null>((min, h) => Math.min(min ?? h.first, h.first), null)
  const days =
    first === null ? HISTORY_DAYS : Math.max(1, Math.min(HISTORY_DAYS, Math.ceil((day - first) / dayMs)))
  return { machines, days }
}
