// A machine or payment terminal alert that was pushed is replaced once, under its tag, when its cause
// ends (decision 187): the machine reports `idle` or `running` again, the device's terminal `ok`, a sale
// through the terminal comes after the failed payments. As the quiet alert's resume (resumed.ts): a
// replacement, not a second buzz: sent in quiet hours too, not counted in the caps, only to a member who
// still wants the kind now (not snoozed, not turned off).
import { sql } from 'drizzle-orm'
import { machineFixedAlert, terminalBackAlert } from '../../domain/alert-texts.ts'
import type { MachineKind } from '../../domain/machines.ts'
import { type Db, queryRows } from '../db/client.ts'
import { parseEpisode } from './equipment.ts'
import { terminalSaleSql } from './equipment-state.ts'
import { type NewAlert, resumeSuffix, type UnreplacedAlert, unreplacedAlerts } from './record.ts'
import { type MemberSettings, snoozed } from './settings.ts'

type OpenAlert = UnreplacedAlert<'machineError' | 'paymentTerminal'>

/** The machine and terminal alerts pushed in the last two days and not replaced yet. */
export const openEquipmentAlerts = (db: Db, at: number) =>
  unreplacedAlerts(db, ['machineError', 'paymentTerminal'], at)

type Text = Pick<NewAlert, 'title' | 'body'>
const time = (value: Date | string) => new Date(value).getTime()

/** The replacement's text when the episode's cause ended by `at`, else null. */
async function endedText(db: Db, storeId: number, storeName: string, episode: string, at: number) {
  const parsed = parseEpisode(episode)
  const now = new Date(at).toISOString()
  if (parsed?.type === 'error') {
    const [row] = await queryRows<{
      name: string
      kind: MachineKind | null
      state: string
      state_since: Date
    }>(
      db,
      sql`select coalesce(name, machine) as name, coalesce(kind, reported_kind) as kind, state, state_since
          from machines where store_id = ${storeId} and machine = ${parsed.machine}`,
    )
    if (!row || (row.state !== 'idle' && row.state !== 'running')) return null
    return machineFixedAlert(storeName, row, parsed.since, time(row.state_since))
  }
  if (parsed?.type === 'down') {
    const [row] = await queryRows<{ terminal: string | null; terminal_since: Date | null }>(
      db,
      sql`select terminal, terminal_since from devices where id = ${parsed.deviceId} and store_id = ${storeId}`,
    )
    if (row?.terminal !== 'ok' || !row.terminal_since) return null
    return terminalBackAlert(storeName, { down: true, since: parsed.since }, time(row.terminal_since))
  }
  if (parsed?.type === 'failures') {
    const after = parsed.from === null ? '-infinity' : new Date(parsed.from).toISOString()
    const [row] = await queryRows<{ first: Date | null }>(
      db,
      sql`select min(created_at) as first from usages where store_id = ${storeId} and ${terminalSaleSql}
            and created_at > ${after}::timestamptz and created_at <= ${now}::timestamptz`,
    )
    if (!row?.first) return null
    return terminalBackAlert(storeName, { failedPayments: true }, time(row.first))
  }
  return null
}

/** The replacements due at `at`: for each open alert whose cause ended, to the members still wanting it. */
export async function clearedAlerts(
  db: Db,
  { open, settings, at }: { open: OpenAlert[]; settings: MemberSettings; at: number },
): Promise<NewAlert[]> {
  const alerts: NewAlert[] = []
  // One look a store's episode, however many members it went to.
  const texts = new Map<string, Text | null>()
  for (const row of open) {
    const storeId = Number(row.store_id)
    const setting = settings.of(Number(row.user_id), storeId)
    if (!setting || snoozed(setting, at) || !setting[row.kind]) continue
    const key = `${storeId}|${row.episode}`
    if (!texts.has(key)) texts.set(key, await endedText(db, storeId, row.store_name, row.episode, at))
    const text = texts.get(key)
    if (!text) continue
    alerts.push({
      userId: Number(row.user_id),
      storeId,
      kind: row.kind,
      episode: `${row.episode}${resumeSuffix}`,
      ...text,
      tag: row.tag,
    })
  }
  return alerts
}
