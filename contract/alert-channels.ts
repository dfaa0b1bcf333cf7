// How alerts reach a person beside Web Push (docs/product.md §12, decisions 230–236): per alert kind
// push, 알림톡 (`kakao`), both or none; how each alert went out; what went out this month. Types only
// for the app (`import type`), schemas for the server.
import { type Static, Type } from 'typebox'

/** One kind's channel: push, KakaoTalk 알림톡, both, or none (the kind off). */
export const AlertChannel = Type.Union([
  Type.Literal('push'),
  Type.Literal('kakao'),
  Type.Literal('both'),
  Type.Literal('none'),
])
export type AlertChannel = Static<typeof AlertChannel>

const kinds = {
  quiet: AlertChannel,
  deviceOffline: AlertChannel,
  machineError: AlertChannel,
  machineSilent: AlertChannel,
  paymentTerminal: AlertChannel,
  morningSummary: AlertChannel,
}

/** Each kind's channel; `none` is the kind turned off (its boolean false). */
export const AlertChannels = Type.Object(kinds)
export type AlertChannels = Static<typeof AlertChannels>

/** The kinds' channels to change; what is left out stays. */
export const AlertChannelsRequest = Type.Partial(Type.Object(kinds), { additionalProperties: false })
export type AlertChannelsRequest = Static<typeof AlertChannelsRequest>

/**
 * How an alert went out by one channel: `pending` (held, or not taken yet), `sent` (push: a browser's
 * push service took it; kakao: the provider took the 알림톡), `fallbackSms` (the 알림톡 refused, sent as
 * SMS/LMS instead), `failed` (no browser took it; the provider refused or failed), `capped` (the day's
 * 알림톡 and SMS cap reached: in this list only), `unknown` (kakao: the instance sending it stopped
 * mid-send; it may have gone, and is never sent again: decision 250). A kakao one the provider took
 * has, once it said, `report` (decision 251): `delivered` (the phone got it), `deliveredSms` (the
 * provider fell back to SMS and the phone got that), `undelivered`, `noReport` (no final word in 24 h).
 */
export const AlertDelivery = Type.Object({
  channel: Type.Union([Type.Literal('push'), Type.Literal('kakao')]),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('sent'),
    Type.Literal('fallbackSms'),
    Type.Literal('failed'),
    Type.Literal('capped'),
    Type.Literal('unknown'),
  ]),
  report: Type.Optional(
    Type.Union([
      Type.Literal('delivered'),
      Type.Literal('deliveredSms'),
      Type.Literal('undelivered'),
      Type.Literal('noReport'),
    ]),
  ),
})
export type AlertDelivery = Static<typeof AlertDelivery>

/** A store's messages this month (Korea time), by channel, for its owners: what they cost. */
export const StoreMessageCounts = Type.Object({
  storeId: Type.Integer(),
  /** `YYYY-MM`, Korea time. */
  month: Type.String(),
  /** Pushes a push service took; 알림톡 the provider took; SMS/LMS sent (fallbacks). */
  push: Type.Integer(),
  kakao: Type.Integer(),
  sms: Type.Integer(),
})
export type StoreMessageCounts = Static<typeof StoreMessageCounts>
