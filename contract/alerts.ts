// The alerts' calls (docs/product.md §12): each user's settings per store, the alerts listed, and, by
// 알림톡 and SMS beside Web Push, the channels chosen and how each alert went out. Apart from api.ts
// (at its size limit), which re-exports it.
import { type Static, Type } from 'typebox'
import { AlertChannels, AlertChannelsRequest, AlertDelivery, StoreMessageCounts } from './alert-channels.ts'

/** A time of day in Korea time, `HH:mm`. */
const ClockTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' })

export const QuietHours = Type.Object(
  { start: ClockTime, end: ClockTime },
  {
    description:
      'Korea time; a window may cross midnight (23:00–07:00, the default); start and end differ. Alerts due inside it are held in the list, not pushed.',
  },
)
export type QuietHours = Static<typeof QuietHours>

/** Minutes without a heartbeat before a store's devices are pushed as offline. */
const OfflineMinutes = Type.Integer({ minimum: 5, maximum: 30 })

export const StoreAlertSettings = Type.Object({
  storeId: Type.Integer(),
  /** The store has gone unusually quiet. */
  quiet: Type.Boolean(),
  /** The store's devices stopped reporting. */
  deviceOffline: Type.Boolean(),
  /** Our addition: after how many minutes without a heartbeat the devices' outage is pushed (5–30, default 10). */
  deviceOfflineMinutes: OfflineMinutes,
  /** Our addition: a machine reports an error (confirmed by a second heartbeat). */
  machineError: Type.Boolean(),
  /** Our addition: a machine sells nothing while the store's other machines of its kind keep selling. */
  machineSilent: Type.Boolean(),
  /** Our addition: the payment terminal is down, or payments fail with no sale after them. */
  paymentTerminal: Type.Boolean(),
  /** The store is in the morning summary. */
  morningSummary: Type.Boolean(),
  quietHours: Type.Union([QuietHours, Type.Null()]),
  /** Until when the store's alerts are snoozed (ISO 8601 in UTC), or null. */
  snoozedUntil: Type.Union([Type.String(), Type.Null()]),
  /**
   * Our addition: about how many minutes without a sale, at the store's usual daytime rate, its quiet
   * alert takes (its own threshold), and whether it is pushed (false: under 20 sales a day, said in the
   * morning summary instead); null with too little history; left out when the server cannot tell yet.
   */
  quietAfter: Type.Optional(
    Type.Union([Type.Object({ minutes: Type.Integer(), push: Type.Boolean() }), Type.Null()]),
  ),
  /** Our addition: each kind's channel (decision 230); `none` where the kind is off. */
  channels: AlertChannels,
  /** Our addition: a 알림톡 refused or undelivered goes as SMS/LMS instead (default true). */
  smsFallback: Type.Boolean(),
})
export type StoreAlertSettings = Static<typeof StoreAlertSettings>

export const AlertSettingsAnswer = Type.Object({
  stores: Type.Array(StoreAlertSettings),
  /** Our addition: the kinds this server can send by 알림톡 (an approved template each); none: push only. */
  kakaoKinds: Type.Array(Type.String()),
})
export type AlertSettingsAnswer = Static<typeof AlertSettingsAnswer>

/** One store's settings to change; what is left out stays. `snooze: true` snoozes it for 24 h from now, false ends the snooze. */
export const AlertSettingsRequest = Type.Object(
  {
    storeId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
    quiet: Type.Optional(Type.Boolean()),
    deviceOffline: Type.Optional(Type.Boolean()),
    deviceOfflineMinutes: Type.Optional(OfflineMinutes),
    machineError: Type.Optional(Type.Boolean()),
    machineSilent: Type.Optional(Type.Boolean()),
    paymentTerminal: Type.Optional(Type.Boolean()),
    morningSummary: Type.Optional(Type.Boolean()),
    quietHours: Type.Optional(Type.Union([QuietHours, Type.Null()])),
    snooze: Type.Optional(Type.Boolean()),
    channels: Type.Optional(AlertChannelsRequest),
    smsFallback: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type AlertSettingsRequest = Static<typeof AlertSettingsRequest>

export const AlertKind = Type.Union([
  Type.Literal('quiet'),
  Type.Literal('deviceOffline'),
  Type.Literal('machineError'),
  Type.Literal('machineSilent'),
  Type.Literal('paymentTerminal'),
  Type.Literal('morningSummary'),
])
export type AlertKind = Static<typeof AlertKind>

export const Alert = Type.Object({
  id: Type.Integer(),
  /** The store it is about; null for the morning summary (all the user's stores). */
  storeId: Type.Union([Type.Integer(), Type.Null()]),
  kind: AlertKind,
  title: Type.String(),
  body: Type.String(),
  /** `held`: due during quiet hours, kept in this list only; `sent`: pushed. */
  state: Type.Union([Type.Literal('held'), Type.Literal('sent')]),
  /** When it was raised (ISO 8601 in UTC). */
  createdAt: Type.String(),
  /** When it was pushed, or null. */
  sentAt: Type.Union([Type.String(), Type.Null()]),
  /** Our addition: how it went out by each channel chosen for it (decision 233); none before channels. */
  deliveries: Type.Array(AlertDelivery),
})
export type Alert = Static<typeof Alert>

export const AlertsAnswer = Type.Object({
  alerts: Type.Array(Alert),
  /** Our addition: this month's messages by channel of each store the caller owns (decision 235). */
  messageCounts: Type.Array(StoreMessageCounts),
})
export type AlertsAnswer = Static<typeof AlertsAnswer>
