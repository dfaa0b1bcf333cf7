// Back online (docs/product.md §12, decision 182): an outage alert that was pushed is replaced once when
// the outage ends (the same tag: the phone shows the replacement in its place), telling how long the
// store's devices were away and how many sales they delivered for that span: the sales of the devices
// of the outage made between its start and its end (they could not arrive before). It waits until those
// devices' heartbeats say their queues are empty, 5 minutes at most. Like the quiet alert's resume: in
// quiet hours too, not counted in the caps, only to a member still wanting the store's device alerts.
import { sql } from 'drizzle-orm'
import { deviceReturnAlert } from '../../domain/alert-texts.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'
import { outageEpisode } from './device-offline.ts'
import type { Outage } from './outages.ts'
import { type NewAlert, resumeSuffix, type UnreplacedAlert, unreplacedAlerts } from './record.ts'
import { type MemberSettings, snoozed } from './settings.ts'
import type { StoreRecord } from './store-state.ts'

/** How long after the return the replacement waits at most for the devices' queues to empty. */
export const queueWaitMs = 5 * 60_000

type OpenOutageAlert = UnreplacedAlert<'deviceOffline'>

/** The outage alerts pushed and not replaced yet, of the stores with an outage ended (none read else). */
export async function openOutageAlerts(db: Db, stores: Map<number, StoreRecord>, at: number) {
  const ended = [...stores.values()]
    .filter((store) => store.outages.some((outage) => outage.endedAt !== null))
    .map((store) => store.id)
  if (ended.length === 0) return []
  return unreplacedAlerts(
    db,
    ['deviceOffline'],
    at,
    sql`a.episode like 'store:%' and a.store_id = any(${intArray(ended)}::int[])`,
  )
}

/** The sales the outage's devices made within it (not refunds), delivered on their return. */
async function queuedSales(db: Db, outage: Outage & { endedAt: number }) {
  const [row] = await queryRows<{ count: string | number }>(
    db,
    sql`select count(*) as count from usages
        where device_id = any(${intArray(outage.deviceIds)}::int[]) and amount >= 0
          and created_at > ${new Date(outage.since).toISOString()}::timestamptz
          and created_at <= ${new Date(outage.endedAt).toISOString()}::timestamptz`,
  )
  return Number(row?.count ?? 0)
}

/** The replacements due at `at`: for each open outage alert whose outage ended and whose queues emptied. */
export async function returnedAlerts(
  db: Db,
  {
    open,
    stores,
    settings,
    at,
  }: { open: OpenOutageAlert[]; stores: Map<number, StoreRecord>; settings: MemberSettings; at: number },
): Promise<NewAlert[]> {
  const alerts: NewAlert[] = []
  const counted = new Map<Outage, number>()
  for (const row of open) {
    const store = stores.get(Number(row.store_id))
    const outage = store?.outages.find((each) => outageEpisode(each.since) === row.episode)
    if (!store || !outage || outage.endedAt === null) continue
    const devices = store.devices.filter((device) => outage.deviceIds.includes(device.id))
    // Ended because its devices were revoked: nothing came back.
    if (devices.length === 0) continue
    if (devices.some((device) => device.pending) && at < outage.endedAt + queueWaitMs) continue
    const setting = settings.of(Number(row.user_id), store.id)
    if (!setting || snoozed(setting, at) || !setting.deviceOffline) continue
    const ended = { ...outage, endedAt: outage.endedAt }
    const queued = counted.get(outage) ?? (await queuedSales(db, ended))
    counted.set(outage, queued)
    alerts.push({
      userId: Number(row.user_id),
      storeId: store.id,
      kind: 'deviceOffline',
      episode: `${row.episode}${resumeSuffix}`,
      ...deviceReturnAlert(store.name, outage.since, outage.endedAt, queued),
      tag: row.tag,
    })
  }
  return alerts
}
