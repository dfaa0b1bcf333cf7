// The machine-silent rule (docs/product.md §12, decisions 190 and 192): a washer or dryer that sells nothing while
// the others of its kind keep selling. The rule is the app's own (domain/machine-silent.ts). Each store's
// machines' sales of the HISTORY_DAYS days before today (their shares) and their runs (server/machines/runs.ts)
// are read once a UTC day, in one query for many stores; each minute, one cheap read of the machines' last sales, then, only for the
// machines whose store sold enough since their last sale to possibly reach their threshold (from the
// view's hourly counts, an upper bound), one query counting the others' sales since. One alert per
// episode (the machine and its last sale). No alert while a device of the store is offline (its sales
// cannot arrive) nor for a machine reporting an error (the error alert says it).
import { sql } from 'drizzle-orm'
import { machineSilentAlert } from '../../domain/alert-texts.ts'
import { dayMs, hourMs, startOfDay, yearOf } from '../../domain/calendar.ts'
import {
  HISTORY_DAYS,
  type MachineModel,
  type MachineRead,
  machineModels,
  machineSilence,
} from '../../domain/machine-silent.ts'
import type { MachineKind } from '../../domain/machines.ts'
import { type Db, queryRows } from '../db/client.ts'
import { machineHistories } from '../machines/runs.ts'
import { OTHERS_COUNT_CAP } from '../machines/silence.ts'
import { anyOffline } from './device-offline.ts'
import type { Candidate, StoreState } from './store-state.ts'

/**
 * Stores whose shares and runs are read in one evaluation at most (one query, about 1–2 s for 150 stores
 * on the loaded 2-core machine, decision 244): a fleet's are read over the day's first minutes, each store
 * judged by yesterday's until then.
 */
export const SHARE_READS_PER_EVALUATION = 150

interface StoreShares {
  day: number
  /** What the store's history looked like when read (historyKey); null until its first visit. */
  key: string | null
  /** Each machine's sales in the days read. */
  sales: Map<string, number>
  /** Each machine's runs in the days read (MachineRead's `runs`). */
  runs: Map<string, number[]>
  /** The days the counts cover (fewer for a store younger than HISTORY_DAYS). */
  days: number
}

/** Each store's shares of the day (one entry a store, replaced when the next UTC day's are read). */
type Shares = Map<number, StoreShares>

/** A washer's or dryer's row (the rule watches no other kind). */
interface MachineRow {
  store_id: number
  machine: string
  name: string | null
  kind: MachineKind
  state: string | null
  last_sale_at: Date | string | null
}

/** The shares of up to `limit` stores lacking today's, read in one query. */
async function readShares(db: Db, shares: Shares, storeIds: number[], day: number, limit: number) {
  const missing = storeIds.filter((id) => shares.get(id)?.day !== day).slice(0, limit)
  if (missing.length === 0) return
  const rows = await machineHistories(db, missing, day - HISTORY_DAYS * dayMs, day)
  for (const id of missing)
    shares.set(id, { day, key: null, sales: new Map(), runs: new Map(), days: HISTORY_DAYS })
  const firsts = new Map<number, number>()
  for (const row of rows) {
    shares.get(row.storeId)?.sales.set(row.machine, row.sales)
    shares.get(row.storeId)?.runs.set(row.machine, row.runs)
    firsts.set(row.storeId, Math.min(firsts.get(row.storeId) ?? day, row.first))
  }
  for (const [id, first] of firsts) {
    const entry = shares.get(id)
    if (entry) entry.days = Math.max(1, Math.min(HISTORY_DAYS, Math.ceil((day - first) / dayMs)))
  }
}

/** The store's sales in the UTC hour starting at `hour` by the view's counts; null: a year not held. */
function hourCount(store: StoreState, hour: number) {
  const year = yearOf(hour)
  const buckets =
    year === store.current.year ? store.current : year === store.previous.year ? store.previous : null
  return buckets ? (buckets.hourCounts[Math.floor((hour - Date.UTC(year, 0, 1)) / hourMs)] ?? 0) : null
}

/**
 * The store's sales of the days read, by the view's daily counts, and its machines: records imported
 * late, or another store under the same id, make the shares read again.
 */
function historyKey(store: StoreState, day: number, rows: readonly MachineRow[]) {
  let sales = 0
  for (let at = day - HISTORY_DAYS * dayMs; at < day; at += dayMs) {
    const date = new Date(at)
    const year = date.getUTCFullYear()
    const buckets =
      year === store.current.year ? store.current : year === store.previous.year ? store.previous : null
    sales += buckets?.dayCounts[date.getUTCMonth()]?.[date.getUTCDate() - 1] ?? 0
  }
  return `${sales}:${rows.map((row) => row.machine).join('|')}`
}

/** The store's sales from `since` to `at` by the hourly counts, whole hours (at least the true count), stopping at `enough`. */
function salesSinceAtMost(store: StoreState, since: number, at: number, enough: number) {
  let sum = 0
  for (let hour = Math.floor(since / hourMs) * hourMs; hour <= at && sum < enough; hour += hourMs) {
    const count = hourCount(store, hour)
    if (count === null) return enough
    sum += count
  }
  return sum
}

interface Watched {
  storeId: number
  storeName: string
  read: MachineRead
  name: string
  model: MachineModel
}

/**
 * The rule of one app's evaluations, each: `load` before the stores are visited (the machines' rows, the
 * shares due), `visit` with each store's state (keeps the machines that may be silent), then
 * `candidates`. The shares it read are its own (of its database: never another app's under the same
 * store id). `shareReadsPerEvaluation`: the stores' shares read in one evaluation at most (tests lower it).
 */
export function machineSilentRule(
  db: Db,
  { shareReadsPerEvaluation = SHARE_READS_PER_EVALUATION }: { shareReadsPerEvaluation?: number } = {},
) {
  const shares: Shares = new Map()
  let byStore = new Map<number, MachineRow[]>()
  const maybe: Watched[] = []

  async function load(at: number) {
    maybe.length = 0
    const rows = await queryRows<MachineRow>(
      db,
      sql`select store_id, machine, name, coalesce(kind, reported_kind, 'other') as kind, state, last_sale_at
          from machines where coalesce(kind, reported_kind, 'other') in ('washer', 'dryer')
          order by store_id, machine`,
    )
    byStore = new Map()
    for (const row of rows) {
      const id = Number(row.store_id)
      byStore.set(id, [...(byStore.get(id) ?? []), row])
    }
    await readShares(db, shares, [...byStore.keys()], startOfDay(at), shareReadsPerEvaluation)
  }

  function visit(store: StoreState, at: number) {
    const rows = byStore.get(store.id)
    const day = shares.get(store.id)
    // Yesterday's shares and runs serve until today's are read (at most a day old).
    if (!rows || !day || startOfDay(at) - day.day > dayMs) return
    // The history as read, noted at the first visit; checked again only when a machine may be silent.
    if (day.key === null) day.key = historyKey(store, day.day, rows)
    if (anyOffline(store.devices, at)) return
    const reads = rows.map((row) => ({
      machine: row.machine,
      kind: row.kind,
      historySales: day.sales.get(row.machine) ?? 0,
      runs: day.runs.get(row.machine),
      lastSaleAt: row.last_sale_at === null ? null : new Date(row.last_sale_at).getTime(),
      error: row.state === 'error',
    }))
    const models = machineModels(reads, day.days)
    const kept: Watched[] = []
    reads.forEach((read, index) => {
      const model = models.get(read.machine)
      if (!model || read.lastSaleAt === null) return
      if (salesSinceAtMost(store, read.lastSaleAt, at, model.othersThreshold) < model.othersThreshold) return
      const row = rows[index] as MachineRow
      kept.push({ storeId: store.id, storeName: store.name, read, name: row.name ?? row.machine, model })
    })
    if (kept.length === 0) return
    if (historyKey(store, day.day, rows) !== day.key)
      shares.delete(store.id) // read again at the next evaluation
    else maybe.push(...kept)
  }

  /** The others' sales since each kept machine's last sale, in one query; the silent ones as candidates. */
  async function candidates(now: Date): Promise<Candidate[]> {
    if (maybe.length === 0) return []
    const asked = maybe.map((w) => ({ store_id: w.storeId, machine: w.read.machine }))
    const counted = await queryRows<{
      store_id: number
      machine: string
      last_sale_at: Date | string
      others: string | number
    }>(
      db,
      sql`select m.store_id, m.machine, m.last_sale_at,
            (select count(*) from (select 1 from usages u
               join machines o on o.store_id = u.store_id and o.machine = u.machine
               where u.store_id = m.store_id and u.created_at > m.last_sale_at and u.amount >= 0
                 and o.machine <> m.machine
                 and coalesce(o.kind, o.reported_kind, 'other') = coalesce(m.kind, m.reported_kind, 'other')
               limit ${OTHERS_COUNT_CAP}) as s) as others
          from jsonb_to_recordset(${JSON.stringify(asked)}::jsonb) as c(store_id int, machine text)
          join machines m on m.store_id = c.store_id and m.machine = c.machine`,
    )
    const others = new Map(counted.map((row) => [`${row.store_id}|${row.machine}`, row]))
    const found: Candidate[] = []
    for (const w of maybe) {
      const row = others.get(`${w.storeId}|${w.read.machine}`)
      // A sale since the rows were read: a new episode, for the next minute.
      if (!row || new Date(row.last_sale_at).getTime() !== w.read.lastSaleAt) continue
      const silent = machineSilence(w.read, w.model, Number(row.others))
      if (!silent) continue
      const episode = machineEpisode(silent.since, w.read.machine)
      const hours = Math.max(1, Math.floor((now.getTime() - silent.since) / hourMs))
      found.push({
        storeId: w.storeId,
        kind: 'machineSilent',
        episode,
        ...machineSilentAlert(w.storeName, { name: w.name, kind: w.read.kind }, hours, silent.othersSales),
        tag: `machineSilent:${w.storeId}:${episode}`,
      })
    }
    return found
  }

  /** The machine's last sale as read this minute (undefined: no such washer or dryer). */
  const lastSaleOf = (storeId: number, machine: string) => {
    const row = byStore.get(storeId)?.find((r) => r.machine === machine)
    return row && (row.last_sale_at === null ? null : new Date(row.last_sale_at).getTime())
  }

  return { load, visit, candidates, lastSaleOf }
}

/** A silent episode: the machine's last sale (ISO 8601, 24 characters), a space, the machine. */
export const machineEpisode = (since: number, machine: string) =>
  `${new Date(since).toISOString()} ${machine}`

/** The episode's last sale and machine. */
export const episodeParts = (episode: string) => ({
  since: Date.parse(episode.slice(0, 24)),
  machine: episode.slice(25),
})
