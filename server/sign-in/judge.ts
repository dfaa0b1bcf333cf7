// Whether a sign-in request may go on, and as which client: first from the refusals remembered in
// memory (refusals.ts), then from the database (the client's lock, the phone-wide failures of its kind
// and its own windows). A known device is never worse off than an unknown one: when what counts it as
// known refuses it where its address would be let in, it is judged as its address. A request let in is
// counted in every window of its client (`admit`).
import { knownDeviceEpoch } from '../db/accounts.ts'
import { messages } from '../errors.ts'
import {
  clientKey,
  freeAts,
  type Refusal,
  rateLimited,
  recordEvents,
  type Tx,
  type Window,
} from '../rate-limit.ts'
import type { createKnownDevices } from './known-device.ts'
import type { Lockout, PhoneLock } from './lockout.ts'
import { normalizePhone } from './phone.ts'
import type { Refusals } from './refusals.ts'
import { type Client, clientsOf, type Kind, type Limits, lockName, phoneFailures } from './windows.ts'

type KnownDevices = ReturnType<typeof createKnownDevices>

/** The refusal that waits longest, with the phone-lock message when a lock or a phone-wide bound is in it. */
function refusalOf(locked: number, full: number, message: string): Refusal | undefined {
  const until = Math.max(locked, full)
  if (until === 0) return undefined
  return { until, message: locked > 0 ? messages.phoneLocked : message }
}

export function createJudge(
  now: () => Date,
  limits: Limits,
  refusals: Refusals,
  knownDevices: KnownDevices,
  lockout: Lockout,
) {
  /**
   * Whether the client may go on, from the database: its own lock of the phone, the phone-wide
   * failures of its kind and its own windows of this kind of request. Every refusal found is
   * remembered. The windows' keys stay locked to the transaction, so the answer holds until it ends.
   */
  async function refusalIn(tx: Tx, phone: string, client: Client, kind: Kind, at: Date) {
    const lock = await lockout.lockOf(tx, phone, client)
    const lockedUntil = lock?.lockedUntil && lock.lockedUntil > at ? lock.lockedUntil.getTime() : 0
    const failures = phoneFailures(limits, phone, client.known)
    const windows = kind.windows(phone, client)
    // The phone's failures first, then the client's own windows: every transaction locks in this order.
    const [failuresFree = 0, ...windowsFree] = await freeAts(tx, at, [failures, ...windows])
    refusals.note(lockName(phone, client), lockedUntil, messages.phoneLocked)
    refusals.note(failures.key, failuresFree, messages.phoneLocked)
    windows.forEach((window, i) => {
      refusals.note(window.key, windowsFree[i] ?? 0, kind.message)
    })
    const refusal = refusalOf(Math.max(lockedUntil, failuresFree), Math.max(0, ...windowsFree), kind.message)
    return { lock, windows, refusal }
  }

  const judge = {
    /**
     * The request as a sign-in reads it (its phone, address, time and browser), or, thrown, the 429
     * that memory already holds for every client it may be counted as.
     */
    opening(rawPhone: string, ip: string, cookies: string | undefined, kind: Kind) {
      const phone = normalizePhone(rawPhone)
      const address = clientKey(ip)
      const at = now()
      const remembered = judge.refusedFromMemory(
        phone,
        clientsOf(address, knownDevices.idsWithMacs(cookies)),
        kind,
      )
      if (remembered) throw rateLimited(remembered, at)
      return { phone, address, at, browserId: knownDevices.deviceIdOf(cookies) }
    },

    /**
     * The refusal memory already holds for every client the request may be counted as (a cookie with
     * MACs may be a known device: its generation is only read in the database), or undefined when any
     * of them may go on as far as this instance knows. Of those, the one that ends first.
     */
    refusedFromMemory(phone: string, clients: Client[], kind: Kind): Refusal | undefined {
      let first: Refusal | undefined
      for (const client of clients) {
        const held = (name: string) => refusals.of(name)?.until ?? 0
        const locked = Math.max(
          held(lockName(phone, client)),
          held(phoneFailures(limits, phone, client.known).key),
        )
        const full = Math.max(0, ...kind.windows(phone, client).map((window) => held(window.key)))
        const refusal = refusalOf(locked, full, kind.message)
        if (!refusal) return undefined
        if (!first || refusal.until < first.until) first = refusal
      }
      return first
    },

    /**
     * The client the request is counted as: its known device unless that is refused where its address
     * is not (a known device is never worse off than an unknown one), or else the refusal that ends
     * first. Clients are tried known device first, and their keys locked in that order.
     */
    async judge(
      tx: Tx,
      phone: string,
      clients: Client[],
      kind: Kind,
      at: Date,
    ): Promise<{ client: Client; lock: PhoneLock | undefined; windows: Window[] } | { refusal: Refusal }> {
      let refused: Refusal | undefined
      for (const client of clients) {
        const { lock, windows, refusal } = await refusalIn(tx, phone, client, kind, at)
        if (!refusal) return { client, lock, windows }
        if (!refused || refusal.until < refused.until) refused = refusal
      }
      if (!refused) throw new Error('a request has at least one client')
      return { refusal: refused }
    },

    /** The known-device ids the Cookie header holds a credential of this phone under, from the database's generation. */
    async knownIdsOf(tx: Tx, cookies: string | undefined, phone: string) {
      if (knownDevices.idsWithMacs(cookies).length === 0) return { epoch: undefined, ids: [] }
      const epoch = await knownDeviceEpoch(tx, phone)
      const id = knownDevices.knownId(cookies, phone, epoch)
      return { epoch, ids: id ? [id] : [] }
    },

    /**
     * Judges the request from the database (`judge`) and, when it may go on, counts it in every
     * window of its client.
     */
    async admit(tx: Tx, phone: string, address: string, knownIds: string[], kind: Kind, at: Date) {
      const judged = await judge.judge(tx, phone, clientsOf(address, knownIds), kind, at)
      if (!('refusal' in judged)) {
        await recordEvents(
          tx,
          at,
          judged.windows.map((window) => window.key),
        )
      }
      return judged
    },
  }
  return judge
}

export type Judge = ReturnType<typeof createJudge>
