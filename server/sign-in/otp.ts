// One-time sign-in codes. A code is 4 digits from a cryptographic source, stored only as an HMAC bound
// to its phone, valid CODE_TTL_SECONDS, single use, and ended by CODE_MAX_TRIES wrong tries.
//
// A code is bound to the browser that asked for it: to the random device id of its `knownDevice`
// cookie (known-device.ts), which the code request sets in a browser that has none. Only that browser
// may use it, and asking again replaces that browser's code only, so another browser behind the same
// address (a shop's Wi-Fi, a carrier's NAT) can neither replace nor end it. A client that keeps no
// cookies (another app on the contract, a script) signs in as before, from its address (clientKey: an
// IPv4 address or an IPv6 /64), with the latest code it asked for there.
//
// Who a request is counted as (its client) is the known device, for a request that carries a valid
// credential for the phone (below), and otherwise its address. Limits, all counted in the database and
// so shared by every instance:
// - a client asks for codes for one phone at most CODE_REQUESTS_PER_PHONE_PER_HOUR times in any hour
//   and CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY times in any 24 hours, and for any numbers at most
//   CODE_REQUESTS_PER_IP_PER_HOUR times an hour;
// - a phone gets at most CODE_REQUESTS_PER_PHONE_PER_DAY codes in any 24 hours from all clients
//   together (the SMS cost of a number). The configuration keeps it above what one client may ask
//   for (10 < 30 by default), so one client alone can never stop the owner elsewhere from asking;
//   a refused request takes no slot anywhere;
// - a client makes at most SIGN_ATTEMPTS_PER_IP_PER_HOUR sign-in attempts, whatever the numbers (a
//   refused attempt is not one);
// - an attempt from a client with no live code of its own for the phone is refused like a missing
//   code, without comparing: it is no guess, and it neither spends the code's tries nor counts toward any lock, so
//   someone who never received the code cannot end it or lock its owner out;
// - every SIGN_FAILURES_BEFORE_LOCK consecutive failures of a phone from one client lock that client
//   out of that phone, LOCK_MINUTES the first time and twice as long each time after, at most
//   LOCK_MAX_HOURS: the owner elsewhere is not locked out by them;
// - a phone answers no attempts from any client that is not a known device of it (below) once
//   SIGN_FAILURES_PER_PHONE_PER_DAY failures (from all those clients together) fall within 24 hours:
//   the bound on guesses against one account, whatever the number of addresses the guesser has. One client alone cannot reach it: its locks hold it to 60
//   failures a day, and its codes to CODE_MAX_TRIES x its daily codes (5 x 10 = 50) by default.
//
// Known devices. Those two phone-wide bounds could still be reached by someone who never received a
// code: 3 addresses use a phone's 30 codes a day, and 8 addresses its 80 failures at once (each asking
// for codes of its own and failing 10 times before its first lock), closing the number to its owner
// for a day; and anyone behind the owner's address could use that address's limits and locks. So a
// successful sign-in leaves a credential for that phone in the browser (known-device.ts: an HttpOnly
// cookie holding a random device id and a MAC of phone, generation and id under the server secret). A
// request that carries a valid credential for its phone comes from a known device:
// - its client is the device (`device:<id>`), not its address: every per-client limit above (hourly
//   and daily codes, attempts, its own lock ladder) counts that device alone, so strangers without its
//   credential, behind its address or anywhere, can never use them up or lock it;
// - it is exempt from the phone-wide bounds (the phone's daily codes and its daily failures), so
//   strangers reaching them do not stop the owner's own device from asking for a code and signing in;
//   known devices' codes count against CODE_REQUESTS_PER_PHONE_PER_DAY of their own, so a number is
//   sent at most twice that many codes a day, whoever asks (a stolen credential included);
// - it still needs a code sent by SMS: the credential alone signs nobody in;
// - its failures count instead against SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY (20), from all
//   known devices of the phone together;
// - it is never worse off than an unknown device: when what counts it as known refuses it (the known
//   devices' 20 failures, which every later user of a shared store-front browser can spend, their
//   codes, or its own limits) while the same request from an unknown device would be let in, it is
//   judged as the unknown device it would be without the cookie (its address, the phone's own windows).
// The guessing bound therefore holds whoever guesses: unknown devices make at most 80 failures a day
// and known devices (the owner's, or a thief's holding a stolen credential, from any number of
// addresses) at most 20 more, so (80 + 20) / 10,000 = 1 % a day at most: a failure is counted in the
// window of the kind the request was judged as, and each window refuses once full. readConfig refuses
// settings whose two windows add up to more than 100.
//
// Refusals are remembered in memory (refusals.ts): a request that every client it may be counted as is
// known to be refused for is answered 429 without touching the database.
//
// Unregistered numbers are answered exactly like registered ones, and get a code row too (never
// sent), so neither the answer nor a later sign-in attempt tells whether a number is registered. A
// sign-in never succeeds for them, so no browser ever holds a known-device credential for one.
import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto'
import { and, desc, eq, gt, lt } from 'drizzle-orm'
import type { Config } from '../config.ts'
import { knownDeviceEpoch } from '../db/accounts.ts'
import type { Db } from '../db/client.ts'
import { loginCodes, phoneLocks, users } from '../db/schema.ts'
import { ApiError, messages } from '../errors.ts'
import {
  clientKey,
  dayMs,
  freeAts,
  lockKey,
  type Refusal,
  rateLimited,
  recordEvent,
  recordEvents,
  type Tx,
  type Window,
} from '../rate-limit.ts'
import { createKnownDevices, newDeviceId } from './known-device.ts'
import { normalizePhone } from './phone.ts'
import { createRefusals } from './refusals.ts'
import { codeText, type SmsOutbox } from './sms.ts'

type Outcome = { userId: number; epoch: number } | { error: ApiError }

/** Who a request is counted as: a known device of the phone (`device:<id>`), or an address. */
interface Client {
  key: string
  known: boolean
}

/** The limits of one kind of request that a client's own windows hold, and the message of their 429. */
interface Kind {
  windows: (phone: string, client: Client) => Window[]
  message: string
}

/** The client of a request: its address, or first its known device when it carries a credential. */
const clientsOf = (address: string, knownIds: string[]): Client[] => [
  ...knownIds.map((id) => ({ key: `device:${id}`, known: true })),
  { key: address, known: false },
]

/** The refusal that waits longest, with the phone-lock message when a lock or a phone-wide bound is in it. */
function refusalOf(locked: number, full: number, message: string): Refusal | undefined {
  const until = Math.max(locked, full)
  if (until === 0) return undefined
  return { until, message: locked > 0 ? messages.phoneLocked : message }
}

export function createOtp(db: Db, secret: string, now: () => Date, limits: Config['limits'], sms: SmsOutbox) {
  const key = createHash('sha256').update(`sign-in codes:${secret}`).digest()
  const hashCode = (phone: string, code: string) =>
    createHmac('sha256', key).update(`${phone}:${code}`).digest()
  const knownDevices = createKnownDevices(secret)
  const refusals = createRefusals(now)
  /**
   * The failed sign-ins of a phone in the last 24 hours: from every unknown client, or (known) from
   * every known device of the phone.
   */
  const phoneFailures = (phone: string, known: boolean): Window =>
    known
      ? {
          key: `sign-failure:phone-known:${phone}`,
          limit: limits.signFailuresPerPhoneKnownDevicesPerDay,
          windowMs: dayMs,
        }
      : { key: `sign-failure:phone:${phone}`, limit: limits.signFailuresPerPhonePerDay, windowMs: dayMs }
  /** The name under which a client's lock of a phone is remembered among the refusals. */
  const lockName = (phone: string, client: Client) => `lock:${phone}:${client.key}`

  const codeRequests: Kind = {
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
  }
  const signAttempts: Kind = {
    windows: (_phone, client) => [{ key: `sign:ip:${client.key}`, limit: limits.signAttemptsPerIpPerHour }],
    message: messages.tooManySignIns,
  }

  /**
   * The refusal memory already holds for every client the request may be counted as (a cookie with
   * MACs may be a known device: its generation is only read in the database), or undefined when any
   * of them may go on as far as this instance knows. Of those, the one that ends first.
   */
  function refusedFromMemory(phone: string, clients: Client[], kind: Kind): Refusal | undefined {
    let first: Refusal | undefined
    for (const client of clients) {
      const held = (name: string) => refusals.of(name)?.until ?? 0
      const locked = Math.max(held(lockName(phone, client)), held(phoneFailures(phone, client.known).key))
      const full = Math.max(0, ...kind.windows(phone, client).map((window) => held(window.key)))
      const refusal = refusalOf(locked, full, kind.message)
      if (!refusal) return undefined
      if (!first || refusal.until < first.until) first = refusal
    }
    return first
  }

  /**
   * Whether the client may go on, from the database: its own lock of the phone, the phone-wide
   * failures of its kind and its own windows of this kind of request. Every refusal found is
   * remembered. The windows' keys stay locked to the transaction, so the answer holds until it ends.
   */
  async function refusalIn(tx: Tx, phone: string, client: Client, kind: Kind, at: Date) {
    const [lock] = await tx
      .select()
      .from(phoneLocks)
      .where(and(eq(phoneLocks.phone, phone), eq(phoneLocks.clientKey, client.key)))
    const lockedUntil = lock?.lockedUntil && lock.lockedUntil > at ? lock.lockedUntil.getTime() : 0
    const failures = phoneFailures(phone, client.known)
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

  /**
   * The client the request is counted as: its known device unless that is refused where its address
   * is not (a known device is never worse off than an unknown one), or else the refusal that ends
   * first. Clients are tried known device first, and their keys locked in that order.
   */
  async function judge(
    tx: Tx,
    phone: string,
    clients: Client[],
    kind: Kind,
    at: Date,
  ): Promise<
    | { client: Client; lock: typeof phoneLocks.$inferSelect | undefined; windows: Window[] }
    | { refusal: Refusal }
  > {
    let refused: Refusal | undefined
    for (const client of clients) {
      const { lock, windows, refusal } = await refusalIn(tx, phone, client, kind, at)
      if (!refusal) return { client, lock, windows }
      if (!refused || refusal.until < refused.until) refused = refusal
    }
    if (!refused) throw new Error('a request has at least one client')
    return { refusal: refused }
  }

  /** The known-device ids the Cookie header holds a credential of this phone under, from the database's generation. */
  async function knownIdsOf(tx: Tx, cookies: string | undefined, phone: string) {
    if (knownDevices.idsWithMacs(cookies).length === 0) return { epoch: undefined, ids: [] }
    const epoch = await knownDeviceEpoch(tx, phone)
    const id = knownDevices.knownId(cookies, phone, epoch)
    return { epoch, ids: id ? [id] : [] }
  }

  /** Counts one more failed sign-in of the client and locks it at every Nth; returns when the lock ends (ms), or 0. */
  async function countFailure(
    tx: Tx,
    phone: string,
    client: Client,
    at: Date,
    previous: typeof phoneLocks.$inferSelect | undefined,
  ) {
    await recordEvent(tx, at, phoneFailures(phone, client.known).key)
    const failures = (previous?.failures ?? 0) + 1
    let locks = previous?.locks ?? 0
    let lockedUntil = previous?.lockedUntil ?? null
    let until = 0
    if (failures % limits.signFailuresBeforeLock === 0) {
      locks += 1
      const seconds = Math.min(limits.lockMinutes * 60 * 2 ** (locks - 1), limits.lockMaxHours * 3600)
      lockedUntil = new Date(at.getTime() + seconds * 1000)
      until = lockedUntil.getTime()
      refusals.note(lockName(phone, client), until, messages.phoneLocked)
    }
    const row = { failures, locks, lockedUntil, lastFailureAt: at }
    await tx
      .insert(phoneLocks)
      .values({ phone, clientKey: client.key, ...row })
      .onConflictDoUpdate({ target: [phoneLocks.phone, phoneLocks.clientKey], set: row })
    return until
  }

  return {
    /**
     * Asks for a code; `cookies` is the request's Cookie header, which may name the browser (its
     * device id) and a known device. Returns, besides the code's lifetime, the new device id to set
     * in a browser that has none, to which the code is bound.
     */
    async requestCode(
      rawPhone: string,
      ip: string,
      cookies?: string,
    ): Promise<{ expiresIn: number; deviceId?: string }> {
      const phone = normalizePhone(rawPhone)
      const address = clientKey(ip)
      const at = now()
      const remembered = refusedFromMemory(
        phone,
        clientsOf(address, knownDevices.idsWithMacs(cookies)),
        codeRequests,
      )
      if (remembered) throw rateLimited(remembered, at)
      const browserId = knownDevices.deviceIdOf(cookies)
      const deviceId = browserId === undefined ? newDeviceId() : undefined
      const code = String(randomInt(0, 10_000)).padStart(4, '0')
      const user = await db.transaction(async (tx) => {
        const { ids } = await knownIdsOf(tx, cookies, phone)
        const judged = await judge(tx, phone, clientsOf(address, ids), codeRequests, at)
        if ('refusal' in judged) throw rateLimited(judged.refusal, at)
        await recordEvents(
          tx,
          at,
          judged.windows.map((window) => window.key),
        )
        await tx.delete(loginCodes).where(lt(loginCodes.expiresAt, at))
        // A client without cookies has one code per address, as before: its latest. An earlier one stays
        // with the browser whose id it was given to (a browser's first request is made without one).
        if (browserId === undefined) {
          await tx
            .update(loginCodes)
            .set({ cookieless: false })
            .where(
              and(
                eq(loginCodes.phone, phone),
                eq(loginCodes.address, address),
                eq(loginCodes.cookieless, true),
              ),
            )
        }
        const row = {
          phone,
          codeHash: hashCode(phone, code).toString('hex'),
          expiresAt: new Date(at.getTime() + limits.codeTtlSeconds * 1000),
          tries: 0,
          clientKey: `device:${browserId ?? deviceId}`,
          address,
          cookieless: browserId === undefined,
        }
        await tx
          .insert(loginCodes)
          .values(row)
          .onConflictDoUpdate({ target: [loginCodes.phone, loginCodes.clientKey], set: row })
        const [found] = await tx.select({ id: users.id }).from(users).where(eq(users.phone, phone))
        return found
      })
      // Sent in the background: the answer is the same, in the same time, whether the number is
      // registered or the gateway is slow or failing. An unsent code is never known to anyone.
      if (user) sms.send(phone, codeText(code, limits.codeTtlSeconds))
      return deviceId === undefined
        ? { expiresIn: limits.codeTtlSeconds }
        : { expiresIn: limits.codeTtlSeconds, deviceId }
    },

    /**
     * The id of the user the phone and code sign in, with the known-device cookie value to set, or a
     * 401/429 ApiError. `cookies` is the request's Cookie header, which may name the browser and a
     * known device.
     */
    async signIn(
      rawPhone: string,
      code: string,
      ip: string,
      cookies?: string,
    ): Promise<{ userId: number; knownDevice: string }> {
      const phone = normalizePhone(rawPhone)
      const address = clientKey(ip)
      const at = now()
      const remembered = refusedFromMemory(
        phone,
        clientsOf(address, knownDevices.idsWithMacs(cookies)),
        signAttempts,
      )
      if (remembered) throw rateLimited(remembered, at)
      const browserId = knownDevices.deviceIdOf(cookies)
      // Failures are written before the error is thrown, so the transaction returns the outcome.
      const outcome = await db.transaction(async (tx): Promise<Outcome> => {
        await lockKey(tx, `sign:${phone}`)
        const known = await knownIdsOf(tx, cookies, phone)
        const judged = await judge(tx, phone, clientsOf(address, known.ids), signAttempts, at)
        if ('refusal' in judged) return { error: rateLimited(judged.refusal, at) }
        const { client, lock } = judged
        // Every attempt that is not refused counts against its client.
        await recordEvents(
          tx,
          at,
          judged.windows.map((window) => window.key),
        )
        // Only the code this browser asked for (or, for a client without cookies, the latest asked
        // for from its address without one); another's code is never compared.
        const [live] = await tx
          .select()
          .from(loginCodes)
          .where(
            browserId === undefined
              ? and(
                  eq(loginCodes.phone, phone),
                  eq(loginCodes.address, address),
                  eq(loginCodes.cookieless, true),
                  gt(loginCodes.expiresAt, at),
                )
              : and(eq(loginCodes.phone, phone), eq(loginCodes.clientKey, `device:${browserId}`)),
          )
          .orderBy(desc(loginCodes.expiresAt))
          .limit(1)
        if (!live || live.expiresAt <= at) return { error: new ApiError(401, messages.codeExpired) }
        const ownCode = and(eq(loginCodes.phone, phone), eq(loginCodes.clientKey, live.clientKey))

        const matches = timingSafeEqual(hashCode(phone, code), Buffer.from(live.codeHash, 'hex'))
        const [user] = matches
          ? await tx.select({ id: users.id }).from(users).where(eq(users.phone, phone))
          : []
        if (user) {
          await tx.delete(loginCodes).where(ownCode)
          await tx
            .delete(phoneLocks)
            .where(and(eq(phoneLocks.phone, phone), eq(phoneLocks.clientKey, client.key)))
          return { userId: user.id, epoch: known.epoch ?? (await knownDeviceEpoch(tx, phone)) }
        }
        const tries = live.tries + 1
        if (tries >= limits.codeMaxTries) await tx.delete(loginCodes).where(ownCode)
        else await tx.update(loginCodes).set({ tries }).where(ownCode)
        const lockedUntil = await countFailure(tx, phone, client, at, lock)
        if (lockedUntil > 0)
          return { error: rateLimited({ until: lockedUntil, message: messages.phoneLocked }, at) }
        return { error: new ApiError(401, messages.wrongCode) }
      })
      if ('error' in outcome) throw outcome.error
      return {
        userId: outcome.userId,
        knownDevice: knownDevices.afterSignIn(cookies, phone, outcome.epoch),
      }
    },

    /** Forgets the refusals remembered (tests that empty the database between cases). */
    forgetRefusals() {
      refusals.clear()
    },
  }
}

export type Otp = ReturnType<typeof createOtp>
