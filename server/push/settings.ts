// Each user's alert settings per store (docs/product.md decision 92): each kind on or off, quiet hours
// in Korea time (default 23:00–07:00; a window may cross midnight; none at all), a 24-hour snooze. No
// row is the defaults; a change writes the whole row in one upsert.
import { and, eq } from 'drizzle-orm'
import type { AlertSettingsRequest, StoreAlertSettings } from '../../contract/api.ts'
import type { Db } from '../db/client.ts'
import { alertSettings } from '../db/schema.ts'
import { storesOf } from '../store-access.ts'

export const snoozeMs = 24 * 60 * 60_000
export const defaultQuietHours = { start: 23 * 60, end: 7 * 60 }

const pad = (value: number) => String(value).padStart(2, '0')
/** Minutes after midnight as `HH:mm`. */
export const clockText = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`
/** `HH:mm` as minutes after midnight. */
export const clockMinutes = (text: string) => Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5))

type Row = typeof alertSettings.$inferSelect

function answerOf(storeId: number, row: Row | undefined, now: Date): StoreAlertSettings {
  const start = row ? row.quietStart : defaultQuietHours.start
  const end = row ? row.quietEnd : defaultQuietHours.end
  const snoozed = row?.snoozedUntil && row.snoozedUntil > now ? row.snoozedUntil : null
  return {
    storeId,
    quiet: row?.quiet ?? true,
    deviceOffline: row?.deviceOffline ?? true,
    morningSummary: row?.morningSummary ?? true,
    quietHours: start === null || end === null ? null : { start: clockText(start), end: clockText(end) },
    snoozedUntil: snoozed ? snoozed.toISOString() : null,
  }
}

/** The user's settings for each store they may see, in the profile's order. */
export async function settingsOf(db: Db, userId: number, now: Date): Promise<StoreAlertSettings[]> {
  const stores = await storesOf(db, userId)
  const rows = await db.select().from(alertSettings).where(eq(alertSettings.userId, userId))
  return stores.map((store) =>
    answerOf(
      store.id,
      rows.find((row) => row.storeId === store.id),
      now,
    ),
  )
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
    const values = {
      userId,
      storeId: change.storeId,
      quiet: change.quiet ?? current.quiet,
      deviceOffline: change.deviceOffline ?? current.deviceOffline,
      morningSummary: change.morningSummary ?? current.morningSummary,
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
