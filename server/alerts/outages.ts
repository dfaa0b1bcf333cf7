// A store's outages (docs/product.md §12, decision 180): an outage runs from the first of the store's
// devices offline (unheard for 3 heartbeats, as the app shows it) until every device is heard again; a
// device dropping while another is out is the same outage. The rules bring the rows up to date each
// minute before they run, whichever instance sees a change first (the database's keys make the others'
// writes do nothing): the push of an outage, its return, the store's flapping (decision 181) and the
// quiet rule's away spans (decision 183) are read from them.
import { sql } from 'drizzle-orm'
import { dayMs, hourMs } from '../../domain/calendar.ts'
import { isOffline } from '../../domain/devices.ts'
import { type Db, intArray, queryRows } from '../db/client.ts'

/** A paired device as the rules read it (store-state.ts reads them all). */
export interface DeviceState {
  id: number
  storeId: number
  name: string
  /** The last heartbeat (or the pairing, when none yet). */
  seenAt: number
  /** Sales waiting in its queue, as its last heartbeat said (null: never said). */
  pending: number | null
}

export interface Outage {
  storeId: number
  /** When it began: the last heartbeat of the first device unheard. */
  since: number
  /** The devices unheard in it. */
  deviceIds: number[]
  /** When the rules found every device heard again (within a minute of it); null while it lasts. */
  endedAt: number | null
}

/** Outages are read (and kept) this long after they began or ended: the returns and the flapping need less. */
export const outagesKeptMs = 2 * dayMs
/** This many outages beginning within `flapWindowMs` make the store's connection unstable. */
export const flapEpisodes = 3
export const flapWindowMs = hourMs

interface OutageRow {
  store_id: number
  since: Date | string
  device_ids: number[]
  ended_at: Date | string | null
}

/** The outages open or begun within `outagesKeptMs`, by store, oldest first. */
async function readOutages(db: Db, at: number) {
  const rows = await queryRows<OutageRow>(
    db,
    sql`select store_id, since, device_ids, ended_at from device_outages
        where ended_at is null or since > ${new Date(at - outagesKeptMs).toISOString()}::timestamptz
        order by store_id, since`,
  )
  const outagesOf = new Map<number, Outage[]>()
  for (const row of rows) {
    const storeId = Number(row.store_id)
    const list = outagesOf.get(storeId) ?? []
    list.push({
      storeId,
      since: new Date(row.since).getTime(),
      deviceIds: (row.device_ids ?? []).map(Number),
      endedAt: row.ended_at === null ? null : new Date(row.ended_at).getTime(),
    })
    outagesOf.set(storeId, list)
  }
  return outagesOf
}

/** What a store's outage rows need at `at`, from its devices: one opened, the open one ended or grown. */
export function outageChange(
  devices: DeviceState[],
  open: Outage | undefined,
  at: number,
): { open: { since: number; deviceIds: number[] } } | { end: true } | { add: number[] } | null {
  const silent = devices.filter((device) => isOffline(device.seenAt, at))
  if (!open) {
    if (silent.length === 0) return null
    return {
      open: {
        since: Math.min(...silent.map((device) => device.seenAt)),
        deviceIds: silent.map((device) => device.id),
      },
    }
  }
  if (silent.length === 0) return { end: true }
  const added = silent.filter((device) => !open.deviceIds.includes(device.id)).map((device) => device.id)
  return added.length > 0 ? { add: [...open.deviceIds, ...added] } : null
}

/**
 * Brings every store's outage rows up to `at` from its devices (`devicesOf`, paired and not revoked: an
 * outage of a store whose devices were all revoked ends), and answers the outages kept, by store.
 */
export async function syncOutages(db: Db, devicesOf: Map<number, DeviceState[]>, at: number) {
  const kept = await readOutages(db, at)
  const opened: { store_id: number; since: string; device_ids: string }[] = []
  const ended: number[] = []
  const grown: { storeId: number; deviceIds: number[] }[] = []
  for (const storeId of new Set([...devicesOf.keys(), ...kept.keys()])) {
    const open = kept.get(storeId)?.find((outage) => outage.endedAt === null)
    const change = outageChange(devicesOf.get(storeId) ?? [], open, at)
    if (!change) continue
    if ('open' in change)
      opened.push({
        store_id: storeId,
        since: new Date(change.open.since).toISOString(),
        device_ids: intArray(change.open.deviceIds),
      })
    else if ('end' in change) ended.push(storeId)
    else grown.push({ storeId, deviceIds: change.add })
  }
  if (opened.length + ended.length + grown.length === 0) return kept
  // In bulk (a fleet's devices may drop at once): one JSON parameter, never a list of rows. A second
  // instance's insert, or a stale one's for an outage already ended, does nothing.
  if (opened.length > 0)
    await db.execute(
      sql`insert into device_outages (store_id, since, device_ids)
          select store_id, since, device_ids::int[]
          from jsonb_to_recordset(${JSON.stringify(opened)}::jsonb) as o(store_id int, since timestamptz, device_ids text)
          on conflict do nothing`,
    )
  if (ended.length > 0)
    await db.execute(
      sql`update device_outages set ended_at = ${new Date(at).toISOString()}::timestamptz
          where ended_at is null and store_id = any(${intArray(ended)}::int[])`,
    )
  for (const { storeId, deviceIds } of grown)
    await db.execute(
      sql`update device_outages set device_ids = ${intArray(deviceIds)}::int[]
          where store_id = ${storeId} and ended_at is null`,
    )
  await db.execute(
    sql`delete from device_outages where ended_at < ${new Date(at - outagesKeptMs).toISOString()}::timestamptz`,
  )
  return readOutages(db, at)
}

/**
 * The store's flapping at `at` (decision 181), for its open outage: when it and the outages begun within
 * the hour before it are `flapEpisodes` or more, and it is not an hour old yet (an outage lasting an
 * hour is an outage: pushed as one). Its key is the start of the chain of outages each begun within an
 * hour of the one before (one alert a chain); `episodes` the outages of the hour.
 */
export function flappingOf(outages: Outage[], open: Outage, at: number) {
  if (at - open.since > flapWindowMs) return null
  const index = outages.indexOf(open)
  const hour = outages.filter(
    (outage) => outage.since >= open.since - flapWindowMs && outage.since <= open.since,
  )
  if (index < 0 || hour.length < flapEpisodes) return null
  let first = index
  while (first > 0) {
    const here = outages[first] as Outage
    const before = outages[first - 1] as Outage
    if (here.since - before.since > flapWindowMs) break
    first--
  }
  return { since: (outages[first] as Outage).since, episodes: hour.length }
}
