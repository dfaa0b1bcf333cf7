// What the rules read of every store with members, once a minute: its name, its figures from the
// instance's view of every store (server/stores/view.ts, decision 131: loaded in bulk when there is none,
// when it does not cover now or lacks a store; else brought up to the changes log), and its paired
// devices' last heartbeats, its outages (outages.ts: brought up to date first), its machines in error,
// terminals down and recent failed payments (equipment-state.ts). A rule is a function of one store's
// state and now to candidates.
import { sql } from 'drizzle-orm'
import type { AlertKind } from '../../contract/api.ts'
import type { Buckets } from '../../domain/buckets.ts'
import { type Db, queryRows } from '../db/client.ts'
import { hasMembersSql } from '../store-access.ts'
import type { StoreViews } from '../stores/view.ts'
import { type Equipment, equipmentByStore, noEquipment } from './equipment-state.ts'
import { type DeviceState, type Outage, syncOutages } from './outages.ts'
import type { NewAlert } from './record.ts'

export type { DeviceState } from './outages.ts'

/** One store's state at the evaluation's instant, for the rules. */
export interface StoreState {
  id: number
  name: string
  /** This year's and last year's buckets: scratch, valid only while the rules run on this store. */
  current: Buckets
  previous: Buckets
  devices: DeviceState[]
  /** Its outages open or begun within two days, oldest first (outages.ts). */
  outages: Outage[]
  /** Its machines in error, terminals down, failed payments of the last minutes. */
  equipment: Equipment
}

/** What is kept of a store after the rules ran on it: for the resumes and the morning summary. */
export interface StoreRecord {
  id: number
  name: string
  lastSaleAt: number | null
  devices: DeviceState[]
  outages: Outage[]
  /** The store's buckets again (the view's scratch: valid until its next call). */
  buckets: () => [Buckets, Buckets]
}

/** An alert of one store, before it is given to each member who wants it. */
export type Candidate = Omit<NewAlert, 'userId' | 'storeId'> & {
  storeId: number
  kind: Exclude<AlertKind, 'morningSummary'>
  /** An outage's start: recorded for a member once it lasted their `deviceOfflineMinutes` (decision 180). */
  offlineSince?: number
}

/** Every paired device's last heartbeat (of every store, or of the one `storeId`), by store. */
export async function devicesByStore(db: Db, storeId?: number) {
  const rows = await queryRows<{
    id: number
    store_id: number
    name: string
    seen_at: Date | string
    pending: number | null
  }>(
    db,
    sql`select id, store_id, name, coalesce(last_seen_at, paired_at) as seen_at, pending from devices
        where paired_at is not null and revoked_at is null
          and ${storeId === undefined ? sql`true` : sql`store_id = ${storeId}`}`,
  )
  const devicesOf = new Map<number, DeviceState[]>()
  for (const row of rows) {
    const list = devicesOf.get(Number(row.store_id)) ?? []
    list.push({
      id: Number(row.id),
      storeId: Number(row.store_id),
      name: row.name,
      seenAt: new Date(row.seen_at).getTime(),
      pending: row.pending === null ? null : Number(row.pending),
    })
    devicesOf.set(Number(row.store_id), list)
  }
  return devicesOf
}

/**
 * Reads every store with members and runs `visit` on each one's state at `at`, while its buckets are
 * valid; answers what is kept of each.
 */
export async function eachStore(
  db: Db,
  views: StoreViews,
  at: number,
  visit: (store: StoreState) => void,
): Promise<Map<number, StoreRecord>> {
  const storeRows = await queryRows<{ id: number; name: string }>(
    db,
    sql`select s.id, s.name from stores s
        where ${hasMembersSql(sql`s.id`)}
        order by s.id`,
  )
  const devicesOf = await devicesByStore(db)
  const outagesOf = await syncOutages(db, devicesOf, at)
  const equipmentOf = await equipmentByStore(db, at)
  const view = await views.upToDate(
    at,
    storeRows.map((row) => Number(row.id)),
  )
  const stores = new Map<number, StoreRecord>()
  for (const row of storeRows) {
    const id = Number(row.id)
    const [current, previous] = view.bucketsOf(id, at)
    const devices = devicesOf.get(id) ?? []
    const outages = outagesOf.get(id) ?? []
    stores.set(id, {
      id,
      name: row.name,
      lastSaleAt: current.lastSaleAt ?? previous.lastSaleAt,
      devices,
      outages,
      buckets: () => view.bucketsOf(id, at),
    })
    visit({
      id,
      name: row.name,
      current,
      previous,
      devices,
      outages,
      equipment: equipmentOf.get(id) ?? noEquipment,
    })
  }
  return stores
}
