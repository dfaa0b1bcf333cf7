// Each user's alert settings per store (docs/product.md decision 92): each kind on or off (and after how
// many minutes the devices' outage is pushed), quiet hours in Korea time (default 23:00–07:00; a window
// may cross midnight; none at all), a 24-hour snooze. No row is the defaults; a change writes the whole row in one upsert. The settings screen reads and
// changes one user's; the evaluation reads every member's at once (`memberSettings`).
import { and, eq, sql } from 'drizzle-orm'
import type { AlertKind, AlertSettingsRequest, StoreAlertSettings } from '../../contract/api.ts'
import { type Db, queryRows } from '../db/client.ts'
import { alertSettings, pushSubscriptions } from '../db/schema.ts'
import { everyMembershipSql, storesOf } from '../store-access.ts'
import { alertKinds, type ChannelChoice, type Chosen, channelsAnswer, type KakaoKinds } from './channels.ts'

export const snoozeMs = 24 * 60 * 60_000
/** Minutes without a heartbeat before the devices' outage is pushed, unless the member chose 5–30. */
export const defaultOfflineMinutes = 10
export const defaultQuietHours = { start: 23 * 60, end: 7 * 60 }

const pad = (value: number) => String(value).padStart(2, '0')
/** Minutes after midnight as `HH:mm`. */
export const clockText = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`
/** `HH:mm` as minutes after midnight. */
export const clockMinutes = (text: string) => Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5))

type Row = typeof alertSettings.$inferSelect

function answerOf(
  storeId: number,
  row: Row | undefined,
  now: Date,
  channels: { hasPush: boolean; kakaoKinds: KakaoKinds } = { hasPush: true, kakaoKinds: new Set() },
): StoreAlertSettings {
  const start = row ? row.quietStart : defaultQuietHours.start
  const end = row ? row.quietEnd : defaultQuietHours.end
  const snoozed = row?.snoozedUntil && row.snoozedUntil > now ? row.snoozedUntil : null
  const on = {
    quiet: row?.quiet ?? true,
    deviceOffline: row?.deviceOffline ?? true,
    machineError: row?.machineError ?? true,
    machineSilent: row?.machineSilent ?? true,
    paymentTerminal: row?.paymentTerminal ?? true,
    morningSummary: row?.morningSummary ?? true,
  }
  const choice = { channels: row?.channels ?? {}, hasPush: channels.hasPush }
  return {
    storeId,
    ...on,
    deviceOfflineMinutes: row?.deviceOfflineMinutes ?? defaultOfflineMinutes,
    quietHours: start === null || end === null ? null : { start: clockText(start), end: clockText(end) },
    snoozedUntil: snoozed ? snoozed.toISOString() : null,
    channels: channelsAnswer(choice, on, channels.kakaoKinds),
    smsFallback: row?.smsFallback ?? true,
  }
}

/** The user's settings for each store they may see, in the profile's order. */
export async function settingsOf(
  db: Db,
  userId: number,
  now: Date,
  kakaoKinds: KakaoKinds = new Set(),
): Promise<StoreAlertSettings[]> {
  const stores = await storesOf(db, userId)
  const rows = await db.select().from(alertSettings).where(eq(alertSettings.userId, userId))
  const hasPush =
    (
      await db
        .select({ endpoint: pushSubscriptions.endpoint })
        .from(pushSubscriptions)
        .where(eq(pushSubscriptions.userId, userId))
        .limit(1)
    ).length > 0
  return stores.map((store) =>
    answerOf(
      store.id,
      rows.find((row) => row.storeId === store.id),
      now,
      { hasPush, kakaoKinds },
    ),
  )
}

/** The kinds' on/off and stored channels after a change of channels (`none` turns a kind off). */
function withChannels(
  current: StoreAlertSettings,
  stored: Record<string, Chosen>,
  change: AlertSettingsRequest,
) {
  const channels = { ...stored }
  const on: Partial<Record<keyof typeof current.channels, boolean>> = {}
  for (const [kind, channel] of Object.entries(change.channels ?? {}) as [
    keyof typeof current.channels,
    string,
  ][]) {
    on[kind] = channel !== 'none'
    if (channel !== 'none') channels[kind] = channel as Chosen
  }
  return { channels, on }
}

/** Applies a change to one store's settings (the caller checked the user may see the store). */
export async function changeSettings(db: Db, userId: number, change: AlertSettingsRequest, now: Date) {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(alertSettings)
      .where(and(eq(alertSettings.userId, userId), eq(alertSettings.storeId, change.storeId)))
      .for('update')
    const current = answerOf(change.storeId, row, now)
    const quietHours = change.quietHours === undefined ? current.quietHours : change.quietHours
    const snoozedUntil =
      change.snooze === undefined
        ? current.snoozedUntil === null
          ? null
          : new Date(current.snoozedUntil)
        : change.snooze
          ? new Date(now.getTime() + snoozeMs)
          : null
    const { channels, on } = withChannels(current, row?.channels ?? {}, change)
    const values = {
      userId,
      storeId: change.storeId,
      quiet: on.quiet ?? change.quiet ?? current.quiet,
      deviceOffline: on.deviceOffline ?? change.deviceOffline ?? current.deviceOffline,
      deviceOfflineMinutes: change.deviceOfflineMinutes ?? current.deviceOfflineMinutes,
      machineError: on.machineError ?? change.machineError ?? current.machineError,
      machineSilent: on.machineSilent ?? change.machineSilent ?? current.machineSilent,
      paymentTerminal: on.paymentTerminal ?? change.paymentTerminal ?? current.paymentTerminal,
      morningSummary: on.morningSummary ?? change.morningSummary ?? current.morningSummary,
      channels,
      smsFallback: change.smsFallback ?? current.smsFallback,
      quietStart: quietHours ? clockMinutes(quietHours.start) : null,
      quietEnd: quietHours ? clockMinutes(quietHours.end) : null,
      snoozedUntil,
      updatedAt: now,
    }
    await tx
      .insert(alertSettings)
      .values(values)
      .onConflictDoUpdate({ target: [alertSettings.userId, alertSettings.storeId], set: values })
  })
}

/** Whether an instant (a Korea-time minute of the day) falls inside quiet hours; a window may cross midnight. */
export function inQuietHours(hours: { start: number; end: number } | null, at: Date): boolean {
  if (!hours) return false
  const minute = (at.getUTCHours() * 60 + at.getUTCMinutes() + 9 * 60) % (24 * 60)
  return hours.start < hours.end
    ? minute >= hours.start && minute < hours.end
    : minute >= hours.start || minute < hours.end
}

/** What the evaluation reads of a member's settings for one store. */
export interface Setting extends ChannelChoice {
  smsFallback: boolean
  /** The member sees the store's won amounts (§15): else no alert text of theirs carries one. */
  seesMoney: boolean
  quiet: boolean
  deviceOffline: boolean
  deviceOfflineMinutes: number
  machineError: boolean
  machineSilent: boolean
  paymentTerminal: boolean
  morningSummary: boolean
  hours: { start: number; end: number } | null
  snoozedUntil: number | null
}

interface SettingRow {
  user_id: number
  store_id: number
  quiet: boolean | null
  device_offline: boolean | null
  device_offline_minutes: number | null
  machine_error: boolean | null
  machine_silent: boolean | null
  payment_terminal: boolean | null
  morning_summary: boolean | null
  quiet_start: number | null
  quiet_end: number | null
  snoozed_until: Date | string | null
  has_row: boolean
  channels: Record<string, Chosen> | string | null
  sms_fallback: boolean | null
  has_push: boolean
  sees_money: boolean
}

const settingOf = (row: SettingRow): Setting => ({
  quiet: row.quiet ?? true,
  deviceOffline: row.device_offline ?? true,
  deviceOfflineMinutes:
    row.device_offline_minutes === null ? defaultOfflineMinutes : Number(row.device_offline_minutes),
  machineError: row.machine_error ?? true,
  machineSilent: row.machine_silent ?? true,
  paymentTerminal: row.payment_terminal ?? true,
  morningSummary: row.morning_summary ?? true,
  hours: !row.has_row
    ? defaultQuietHours
    : row.quiet_start === null || row.quiet_end === null
      ? null
      : { start: Number(row.quiet_start), end: Number(row.quiet_end) },
  snoozedUntil: row.snoozed_until === null ? null : new Date(row.snoozed_until).getTime(),
  channels: typeof row.channels === 'string' ? JSON.parse(row.channels) : (row.channels ?? {}),
  smsFallback: row.sms_fallback ?? true,
  hasPush: !!row.has_push,
  seesMoney: row.sees_money === true,
})

/** The kinds a member has on for a store (the owner's team screen, decision 226); no setting read: the defaults, all on. */
export const alertKindsOn = (setting: Setting | undefined): AlertKind[] =>
  alertKinds.filter((kind) => setting?.[kind] ?? true)

/** Whether the store's alerts are snoozed for the member at `at`. */
export const snoozed = (setting: Setting, at: number) =>
  setting.snoozedUntil !== null && setting.snoozedUntil > at

/** Every membership's settings (a membership without a row has the defaults), read in one query. */
export class MemberSettings {
  private readonly settings = new Map<string, Setting>()
  private readonly members = new Map<number, number[]>()
  /** The memberships read, by user then store. */
  readonly rows: { userId: number; storeId: number }[] = []

  add(rows: SettingRow[]) {
    for (const row of rows) {
      const userId = Number(row.user_id)
      const storeId = Number(row.store_id)
      this.settings.set(`${userId}|${storeId}`, settingOf(row))
      this.rows.push({ userId, storeId })
      const list = this.members.get(storeId) ?? []
      list.push(userId)
      this.members.set(storeId, list)
    }
    return this
  }

  /** The member's setting for the store; undefined when the user is not (any more) its member. */
  of(userId: number, storeId: number) {
    return this.settings.get(`${userId}|${storeId}`)
  }

  /** The store's members. */
  membersOf(storeId: number) {
    return this.members.get(storeId) ?? []
  }

  /** The user's settings of every store they are a member of. */
  ofUser(userId: number) {
    return this.rows.flatMap((row) => (row.userId === userId ? (this.of(userId, row.storeId) ?? []) : []))
  }
}

const settingColumns = sql`m.user_id, m.store_id, a.quiet, a.device_offline, a.device_offline_minutes,
  a.machine_error, a.machine_silent, a.payment_terminal, a.morning_summary, a.quiet_start,
  a.quiet_end, a.snoozed_until, (a.user_id is not null) as has_row, a.channels, a.sms_fallback,
  exists (select 1 from push_subscriptions p where p.user_id = m.user_id) as has_push, m.sees_money
  from ${everyMembershipSql} m
  left join alert_settings a on a.user_id = m.user_id and a.store_id = m.store_id`

/** Every membership's settings, by user then store. */
export async function memberSettings(db: Db) {
  return new MemberSettings().add(
    await queryRows<SettingRow>(db, sql`select ${settingColumns} order by m.user_id, m.store_id`),
  )
}

/** The settings of one store's members (the rules run for that store alone after a heartbeat). */
export async function storeMemberSettings(db: Db, storeId: number) {
  return new MemberSettings().add(
    await queryRows<SettingRow>(
      db,
      sql`select ${settingColumns} where m.store_id = ${storeId} order by m.user_id`,
    ),
  )
}

/** The settings of the users who have held alerts (all their memberships): added to `settings`. */
export async function addHeldUsersSettings(db: Db, settings: MemberSettings) {
  return settings.add(
    await queryRows<SettingRow>(
      db,
      sql`select ${settingColumns} where m.user_id in (select distinct user_id from alerts where state = 'held')`,
    ),
  )
}
