// Asking for a sign-in code: judged against the code-request windows (judge.ts), the code stored only
// as its HMAC and bound to the browser that asked (its device id, set here in a browser that has none;
// a client without cookies has one code per address, its latest), then sent in the background by the
// SMS outbox (sms.ts), and only to a registered or invited number: the answer is the same for any number.
import { randomInt } from 'node:crypto'
import { and, eq, lt } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { loginCodes, users } from '../db/schema.ts'
import { rateLimited } from '../rate-limit.ts'
import { hasPendingInvite } from '../team/invites.ts'
import type { Judge } from './judge.ts'
import { newDeviceId } from './known-device.ts'
import { codeText, type SmsOutbox } from './sms.ts'
import { codeRequests, type Limits } from './windows.ts'

export interface CodeRequestParts {
  db: Db
  limits: Limits
  sms: SmsOutbox
  judge: Judge
  /** The HMAC of a phone's code under the server secret, the only form a code is kept in. */
  hashCode: (phone: string, code: string) => Buffer
}

export function createCodeRequest({ db, limits, sms, judge, hashCode }: CodeRequestParts) {
  const kind = codeRequests(limits)
  /**
   * Asks for a code; `cookies` is the request's Cookie header, which may name the browser (its
   * device id) and a known device. Returns, besides the code's lifetime, the new device id to set
   * in a browser that has none, to which the code is bound.
   */
  return async function requestCode(
    rawPhone: string,
    ip: string,
    cookies?: string,
  ): Promise<{ expiresIn: number; deviceId?: string }> {
    const { phone, address, at, browserId } = judge.opening(rawPhone, ip, cookies, kind)
    const deviceId = browserId === undefined ? newDeviceId() : undefined
    const code = String(randomInt(0, 10_000)).padStart(4, '0')
    const user = await db.transaction(async (tx) => {
      const { ids } = await judge.knownIdsOf(tx, cookies, phone)
      const judged = await judge.admit(tx, phone, address, ids, kind, at)
      if ('refusal' in judged) throw rateLimited(judged.refusal, at)
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
      // A number invited to a store gets its code too: its sign-in makes it a user (docs/product.md §15).
      return found !== undefined || (await hasPendingInvite(tx, phone, at))
    })
    // Sent in the background: the answer is the same, in the same time, whether the number is
    // registered or the gateway is slow or failing. An unsent code is never known to anyone.
    if (user) sms.send(phone, codeText(code, limits.codeTtlSeconds))
    return deviceId === undefined
      ? { expiresIn: limits.codeTtlSeconds }
      : { expiresIn: limits.codeTtlSeconds, deviceId }
  }
}
