// A silent machine selling again: its alert, once pushed, is replaced once (the same tag) by one telling
// the gap it was silent for (from its last sale to its first sale after), as a quiet store's is
// (resumed.ts): not counted in the caps, sent in quiet hours too, only to a member who still wants the
// store's machine-silent alerts now.
import { sql } from 'drizzle-orm'
import { machineResumedAlert } from '../../domain/alert-texts.ts'
import type { MachineKind } from '../../domain/machines.ts'
import { type Db, queryRows } from '../db/client.ts'
import { episodeParts } from './machine-silent.ts'
import { type NewAlert, resumeSuffix, type UnreplacedAlert, unreplacedAlerts } from './record.ts'
import { type MemberSettings, snoozed } from './settings.ts'
import type { StoreRecord } from './store-state.ts'

export type OpenMachineAlert = UnreplacedAlert<'machineSilent'>

/** The machine-silent alerts pushed in the last two days and not replaced yet. */
export const openMachineAlerts = (db: Db, at: number) => unreplacedAlerts(db, ['machineSilent'], at)

/** The machine's first sale after `since`, with its name and kind; read only when it sold since. */
async function firstSaleAfter(db: Db, storeId: number, machine: string, since: number) {
  const [row] = await queryRows<{ after: Date | string | null; name: string | null; kind: MachineKind }>(
    db,
    sql`select (select min(created_at) from usages where store_id = ${storeId} and machine = ${machine}
              and amount >= 0 and created_at > ${new Date(since).toISOString()}::timestamptz) as after,
          m.name, coalesce(m.kind, m.reported_kind, 'other') as kind
        from machines m where m.store_id = ${storeId} and m.machine = ${machine}`,
  )
  return row?.after ? { at: new Date(row.after).getTime(), name: row.name ?? machine, kind: row.kind } : null
}

/** The replacements due at `at`: each open alert whose machine sold after its episode began. */
export async function machineResumedAlerts(
  db: Db,
  {
    open,
    stores,
    settings,
    at,
    lastSaleOf,
  }: {
    open: OpenMachineAlert[]
    stores: Map<number, StoreRecord>
    settings: MemberSettings
    at: number
    lastSaleOf: (storeId: number, machine: string) => number | null | undefined
  },
): Promise<NewAlert[]> {
  const alerts: NewAlert[] = []
  for (const row of open) {
    const store = stores.get(Number(row.store_id))
    const { since, machine } = episodeParts(row.episode)
    const last = lastSaleOf(Number(row.store_id), machine)
    if (!store || last === undefined || last === null || last <= since) continue
    const setting = settings.of(Number(row.user_id), Number(row.store_id))
    if (!setting || snoozed(setting, at) || !setting.machineSilent) continue
    const first = await firstSaleAfter(db, store.id, machine, since)
    if (!first) continue
    alerts.push({
      userId: Number(row.user_id),
      storeId: Number(row.store_id),
      kind: 'machineSilent',
      episode: `${row.episode}${resumeSuffix}`,
      ...machineResumedAlert(store.name, { name: first.name, kind: first.kind }, since, first.at),
      tag: row.tag,
    })
  }
  return alerts
}
