// Who a sign-in request is counted as (its client: a known device of the phone, else its address) and
// the windows that count it: a client's own windows of each kind of request (code requests, sign-in
// attempts) and the phone-wide failures of its kind. The rules these numbers keep are told in otp.ts.
import type { Config } from '../config.ts'
import { messages } from '../errors.ts'
import { dayMs, type Window } from '../rate-limit.ts'

export type Limits = Config['limits']

/** Who a request is counted as: a known device of the phone (`device:<id>`), or an address. */
export interface Client {
  key: string
  known: boolean
}

/** The limits of one kind of request that a client's own windows hold, and the message of their 429. */
export interface Kind {
  windows: (phone: string, client: Client) => Window[]
  message: string
}

/** The client of a request: its address, or first its known device when it carries a credential. */
export const clientsOf = (address: string, knownIds: string[]): Client[] => [
  ...knownIds.map((id) => ({ key: `device:${id}`, known: true })),
  { key: address, known: false },
]

/**
 * The failed sign-ins of a phone in the last 24 hours: from every unknown client, or (known) from
 * every known device of the phone.
 */
export const phoneFailures = (limits: Limits, phone: string, known: boolean): Window =>
  known
    ? {
        key: `sign-failure:phone-known:${phone}`,
        limit: limits.signFailuresPerPhoneKnownDevicesPerDay,
        windowMs: dayMs,
      }
    : { key: `sign-failure:phone:${phone}`, limit: limits.signFailuresPerPhonePerDay, windowMs: dayMs }

/** The name under which a client's lock of a phone is remembered among the refusals. */
export const lockName = (phone: string, client: Client) => `lock:${phone}:${client.key}`

/** Asking for a code: a client's hourly and daily windows, and the phone's day of its kind. */
export const codeRequests = (limits: Limits): Kind => ({
  windows: (phone, client) => [
    { key: `code:ip:${client.key}`, limit: limits.codeRequestsPerIpPerHour },
    { key: `code:phone:${phone}:${client.key}`, limit: limits.codeRequestsPerPhonePerHour },
    {
      key: `code:phone-day:${phone}:${client.key}`,
      limit: limits.codeRequestsPerPhonePerClientPerDay,
      windowMs: dayMs,
    },
    // The phone's day: strangers using it up do not stop a known device, whose codes count
    // against a day of their own (so a stolen credential cannot run up the SMS bill either).
    {
      key: client.known ? `code:phone-day-known:${phone}` : `code:phone-day:${phone}`,
      limit: limits.codeRequestsPerPhonePerDay,
      windowMs: dayMs,
    },
  ],
  message: messages.tooManyCodes,
})

/** Signing in with a code: a client's attempts in any hour, whatever the numbers. */
export const signAttempts = (limits: Limits): Kind => ({
  windows: (_phone, client) => [{ key: `sign:ip:${client.key}`, limit: limits.signAttemptsPerIpPerHour }],
  message: messages.tooManySignIns,
})
