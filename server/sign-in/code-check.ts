// Signing in with a code: judged against the sign-in attempt windows (judge.ts), compared only with the
// code this browser asked for (or, for a client without cookies, the latest asked for from its
// address), each wrong try spending one of the code's CODE_MAX_TRIES and climbing the client's lock
// ladder (lockout.ts); a right one ends the code and the ladder and leaves a known-device credential.
import { timingSafeEqual } from 'node:crypto'
import { and, desc, eq, gt } from 'drizzle-orm'
import { knownDeviceEpoch } from '../db/accounts.ts'
import type { Db } from '../db/client.ts'
import { loginCodes } from '../db/schema.ts'
import { ApiError, messages } from '../errors.ts'
import { lockKey, rateLimited } from '../rate-limit.ts'
import { acceptInvites } from '../team/invites.ts'
import type { Judge } from './judge.ts'
import type { createKnownDevices } from './known-device.ts'
import type { Lockout } from './lockout.ts'
import { type Limits, signAttempts } from './windows.ts'

type Outcome = { userId: number; epoch: number } | { error: ApiError }

export interface CodeCheckParts {
  db: Db
  limits: Limits
  knownDevices: ReturnType<typeof createKnownDevices>
  judge: Judge
  lockout: Lockout
  /** The HMAC of a phone's code under the server secret, the only form a code is kept in. */
  hashCode: (phone: string, code: string) => Buffer
}

export function createCodeCheck({ db, limits, knownDevices, judge, lockout, hashCode }: CodeCheckParts) {
  const kind = signAttempts(limits)
  /**
   * The id of the user the phone and code sign in, with the known-device cookie value to set, or a
   * 401/429 ApiError. `cookies` is the request's Cookie header, which may name the browser and a
   * known device.
   */
  return async function signIn(
    rawPhone: string,
    code: string,
    ip: string,
    cookies?: string,
  ): Promise<{ userId: number; knownDevice: string }> {
    const { phone, address, at, browserId } = judge.opening(rawPhone, ip, cookies, kind)
    // Failures are written before the error is thrown, so the transaction returns the outcome.
    const outcome = await db.transaction(async (tx): Promise<Outcome> => {
      await lockKey(tx, `sign:${phone}`)
      const known = await judge.knownIdsOf(tx, cookies, phone)
      // Every attempt that is not refused counts against its client.
      const judged = await judge.admit(tx, phone, address, known.ids, kind, at)
      if ('refusal' in judged) return { error: rateLimited(judged.refusal, at) }
      const { client, lock } = judged
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
      // The right code: the number's pending invites become its stores (and make an invited number
      // unknown until now a user: docs/product.md §15).
      const userId = matches ? await acceptInvites(tx, phone, at) : undefined
      if (userId !== undefined) {
        await tx.delete(loginCodes).where(ownCode)
        await lockout.clear(tx, phone, client)
        return { userId, epoch: known.epoch ?? (await knownDeviceEpoch(tx, phone)) }
      }
      const tries = live.tries + 1
      if (tries >= limits.codeMaxTries) await tx.delete(loginCodes).where(ownCode)
      else await tx.update(loginCodes).set({ tries }).where(ownCode)
      const lockedUntil = await lockout.countFailure(tx, phone, client, at, lock)
      if (lockedUntil > 0)
        return { error: rateLimited({ until: lockedUntil, message: messages.phoneLocked }, at) }
      return { error: new ApiError(401, messages.wrongCode) }
    })
    if ('error' in outcome) throw outcome.error
    return {
      userId: outcome.userId,
      knownDevice: knownDevices.afterSignIn(cookies, phone, outcome.epoch),
    }
  }
}
