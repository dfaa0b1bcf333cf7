// One-time sign-in codes. A code is 4 digits from a cryptographic source, stored only as an HMAC bound
// to its phone, valid CODE_TTL_SECONDS, single use, ended by CODE_MAX_TRIES wrong tries, and usable
// only from the client (clientKey: an IPv4 address or an IPv6 /64) that requested it. Each client has
// its own live code for a phone: a newer request replaces that client's code only, never the code the
// owner asked for from elsewhere.
//
// Limits, all counted in the database and so shared by every instance:
// - a client asks for codes for one phone at most CODE_REQUESTS_PER_PHONE_PER_HOUR times in any hour
//   and CODE_REQUESTS_PER_PHONE_PER_CLIENT_PER_DAY times in any 24 hours, and for any numbers at most
//   CODE_REQUESTS_PER_IP_PER_HOUR times an hour;
// - a phone gets at most CODE_REQUESTS_PER_PHONE_PER_DAY codes in any 24 hours from all clients
//   together (the SMS cost of a number). The configuration keeps it above what one client may ask
//   for (10 < 30 by default), so one client alone can never stop the owner elsewhere from asking;
//   a refused request takes no slot anywhere;
// - a client makes at most SIGN_ATTEMPTS_PER_IP_PER_HOUR sign-in attempts, whatever the numbers;
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
// for a day. So a
// successful sign-in leaves a credential for that phone in the browser (known-device.ts: an HttpOnly
// cookie holding a random device id and a MAC of phone and id under the server secret). A request that
// carries a valid credential for its phone comes from a known device:
// - it is exempt from the phone-wide bounds (the phone's daily codes and its daily failures), so
//   strangers reaching them do not stop the owner's own device from asking for a code and signing in;
//   known devices' codes count against CODE_REQUESTS_PER_PHONE_PER_DAY of their own, so a number is
//   sent at most twice that many codes a day, whoever asks (a stolen credential included);
// - it keeps every per-client limit above (hourly and daily codes per address, attempts per address,
//   its own lock ladder), and still needs a code sent by SMS: the credential alone signs nobody in;
// - its failures count instead against SIGN_FAILURES_PER_PHONE_KNOWN_DEVICES_PER_DAY (20), from all
//   known devices of the phone together, after which known devices are answered no attempts until
//   they age out.
// The guessing bound therefore holds whoever guesses: unknown devices make at most 80 failures a day
// and known devices (the owner's, or a thief's holding a stolen credential from any number of
// addresses) at most 20 more, so (80 + 20) / 10,000 = 1 % a day at most. readConfig refuses settings
// whose two windows add up to more than 100.
//
// Unregistered numbers are answered exactly like registered ones, and get a code row too (never
// sent), so neither the answer nor a later sign-in attempt tells whether a number is registered. A
// sign-in never succeeds for them, so no browser ever holds a known-device credential for one.
import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto'
import { and, eq, lt } from 'drizzle-orm'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { loginCodes, phoneLocks, users } from '../db/schema.ts'
import { ApiError, messages } from '../errors.ts'
import { normalizePhone } from '../phone.ts'
import { createKnownDevices } from './known-device.ts'
import { clientKey, dayMs, lockKey, recordEvent, slotWait, type Tx, takeSlots } from './rate-limits.ts'
import { codeText, type SmsOutbox } from './sms.ts'

type Outcome = { userId: number } | { error: ApiError }

export function createOtp(db: Db, secret: string, now: () => Date, limits: Config['limits'], sms: SmsOutbox) {
  const key = createHash('sha256').update(`sign-in codes:${secret}`).digest()
  const hashCode = (phone: string, code: string) =>
    createHmac('sha256', key).update(`${phone}:${code}`).digest()
  const knownDevices = createKnownDevices(secret)
  /**
   * The failed sign-ins of a phone in the last 24 hours: from every unknown client, or (known) from
   * every known device of the phone.
   */
  const phoneFailures = (phone: string, known: boolean) =>
    known
      ? {
          key: `sign-failure:phone-known:${phone}`,
          limit: limits.signFailuresPerPhoneKnownDevicesPerDay,
          windowMs: dayMs,
        }
      : { key: `sign-failure:phone:${phone}`, limit: limits.signFailuresPerPhonePerDay, windowMs: dayMs }

  /** Seconds the client must wait before trying this phone again: its own lock, or the phone's daily bound (a known device: its own). */
  async function lockedFor(tx: Tx, phone: string, client: string, known: boolean, at: Date) {
    const [lock] = await tx
      .select()
      .from(phoneLocks)
      .where(and(eq(phoneLocks.phone, phone), eq(phoneLocks.clientKey, client)))
    const own = lock?.lockedUntil ? Math.ceil((lock.lockedUntil.getTime() - at.getTime()) / 1000) : 0
    const phoneWide = await slotWait(tx, at, phoneFailures(phone, known))
    return { lock, seconds: Math.max(0, own, phoneWide) }
  }

  /** Counts one more failed sign-in of the client and locks it at every Nth; returns the lock in seconds, or 0. */
  async function countFailure(
    tx: Tx,
    phone: string,
    client: string,
    known: boolean,
    at: Date,
    previous: typeof phoneLocks.$inferSelect | undefined,
  ) {
    await recordEvent(tx, at, phoneFailures(phone, known).key)
    const failures = (previous?.failures ?? 0) + 1
    let locks = previous?.locks ?? 0
    let lockedUntil = previous?.lockedUntil ?? null
    let seconds = 0
    if (failures % limits.signFailuresBeforeLock === 0) {
      locks += 1
      seconds = Math.min(limits.lockMinutes * 60 * 2 ** (locks - 1), limits.lockMaxHours * 3600)
      lockedUntil = new Date(at.getTime() + seconds * 1000)
    }
    await tx
      .insert(phoneLocks)
      .values({ phone, clientKey: client, failures, locks, lockedUntil })
      .onConflictDoUpdate({
        target: [phoneLocks.phone, phoneLocks.clientKey],
        set: { failures, locks, lockedUntil },
      })
    return seconds
  }

  return {
    /** Asks for a code; `cookies` is the request's Cookie header, which may name a known device. */
    async requestCode(rawPhone: string, ip: string, cookies?: string): Promise<{ expiresIn: number }> {
      const phone = normalizePhone(rawPhone)
      const client = clientKey(ip)
      const known = knownDevices.isKnown(cookies, phone)
      const at = now()
      const code = String(randomInt(0, 10_000)).padStart(4, '0')
      const user = await db.transaction(async (tx) => {
        const { seconds } = await lockedFor(tx, phone, client, known, at)
        if (seconds > 0) throw new ApiError(429, messages.phoneLocked, seconds)
        await takeSlots(
          tx,
          at,
          [
            { key: `code:ip:${client}`, limit: limits.codeRequestsPerIpPerHour },
            { key: `code:phone:${phone}:${client}`, limit: limits.codeRequestsPerPhonePerHour },
            {
              key: `code:phone-day:${phone}:${client}`,
              limit: limits.codeRequestsPerPhonePerClientPerDay,
              windowMs: dayMs,
            },
            // The phone's day: strangers using it up do not stop a known device, whose codes count
            // against a day of their own (so a stolen credential cannot run up the SMS bill either).
            {
              key: known ? `code:phone-day-known:${phone}` : `code:phone-day:${phone}`,
              limit: limits.codeRequestsPerPhonePerDay,
              windowMs: dayMs,
            },
          ],
          messages.tooManyCodes,
        )
        await tx.delete(loginCodes).where(lt(loginCodes.expiresAt, at))
        const row = {
          phone,
          codeHash: hashCode(phone, code).toString('hex'),
          expiresAt: new Date(at.getTime() + limits.codeTtlSeconds * 1000),
          tries: 0,
          clientKey: client,
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
      return { expiresIn: limits.codeTtlSeconds }
    },

    /**
     * The id of the user the phone and code sign in, with the known-device cookie value to set, or a
     * 401/429 ApiError. `cookies` is the request's Cookie header, which may name a known device.
     */
    async signIn(
      rawPhone: string,
      code: string,
      ip: string,
      cookies?: string,
    ): Promise<{ userId: number; knownDevice: string }> {
      const phone = normalizePhone(rawPhone)
      const client = clientKey(ip)
      const known = knownDevices.isKnown(cookies, phone)
      const at = now()
      // Failures are written before the error is thrown, so the transaction returns the outcome.
      const outcome = await db.transaction(async (tx): Promise<Outcome> => {
        // Every attempt counts against its client, before anything else is looked at.
        await takeSlots(
          tx,
          at,
          [{ key: `sign:ip:${client}`, limit: limits.signAttemptsPerIpPerHour }],
          messages.tooManySignIns,
        )
        await lockKey(tx, `sign:${phone}`)
        const { lock, seconds } = await lockedFor(tx, phone, client, known, at)
        if (seconds > 0) return { error: new ApiError(429, messages.phoneLocked, seconds) }
        // Only the code this client asked for; another client's code is never compared.
        const ownCode = and(eq(loginCodes.phone, phone), eq(loginCodes.clientKey, client))
        const [live] = await tx.select().from(loginCodes).where(ownCode)
        if (!live || live.expiresAt <= at) return { error: new ApiError(401, messages.codeExpired) }

        const matches = timingSafeEqual(hashCode(phone, code), Buffer.from(live.codeHash, 'hex'))
        const [user] = matches
          ? await tx.select({ id: users.id }).from(users).where(eq(users.phone, phone))
          : []
        if (user) {
          await tx.delete(loginCodes).where(ownCode)
          await tx
            .delete(phoneLocks)
            .where(and(eq(phoneLocks.phone, phone), eq(phoneLocks.clientKey, client)))
          return { userId: user.id }
        }
        const tries = live.tries + 1
        if (tries >= limits.codeMaxTries) await tx.delete(loginCodes).where(ownCode)
        else await tx.update(loginCodes).set({ tries }).where(ownCode)
        const lockSeconds = await countFailure(tx, phone, client, known, at, lock)
        if (lockSeconds > 0) return { error: new ApiError(429, messages.phoneLocked, lockSeconds) }
        return { error: new ApiError(401, messages.wrongCode) }
      })
      if ('error' in outcome) throw outcome.error
      return { userId: outcome.userId, knownDevice: knownDevices.afterSignIn(cookies, phone) }
    },
  }
}

export type Otp = ReturnType<typeof createOtp>
