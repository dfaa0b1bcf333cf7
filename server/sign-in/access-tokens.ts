// Access tokens: signed JWTs (HS256) that live ACCESS_TOKEN_SECONDS and name their sign-in. One is
// accepted only while its sign-in is live (not revoked, not expired, its user not deleted) and is its
// user's, as read from the database at most signInCheckMs earlier. The sign-ins themselves and their
// refresh tokens are tokens.ts's.
import { eq } from 'drizzle-orm'
import { jwtVerify, SignJWT } from 'jose'
import { LRUCache } from 'lru-cache'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { signIns } from '../db/schema.ts'
import { ApiError, messages } from '../errors.ts'

export interface AccessClaims {
  userId: number
  familyId: string
  /** When the token expires (seconds since the epoch, its `exp`): a stream opened with it ends then. */
  expiresAt: number
}

/** Access tokens already verified, so a busy screen's requests (a 304 costs ~3 ms in all) skip the HMAC. */
const verifiedTokensKept = 1000

/**
 * How long an instance may trust what it last read of a sign-in's state. A sign-in ended by this
 * instance (logout, reuse detection) is refused here at once; one ended by another instance, or whose
 * user an admin deleted, is refused here at most this long after.
 */
export const signInCheckMs = 5_000

/** Sign-ins whose state is kept in memory; one not kept is simply read again. */
const signInStatesKept = 10_000

export function createAccessTokens(db: Db, secret: string, now: () => Date, limits: Config['limits']) {
  // Imported once: jose would otherwise import raw key bytes into a CryptoKey on every call.
  const key = crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  )
  /** Claims of tokens whose signature checked out, with their expiry (seconds), which is still checked on every use. */
  const verified = new LRUCache<string, AccessClaims>({ max: verifiedTokensKept })
  /**
   * What was last read of each sign-in (times on the injected clock): live, trusted until
   * `checkedAt + signInCheckMs`, or ended, for good (an ended sign-in never comes back).
   */
  const signInStates = new LRUCache<string, { live: boolean; checkedAt: number; userId?: number }>({
    max: signInStatesKept,
  })
  const ended = (familyId: string) => signInStates.set(familyId, { live: false, checkedAt: now().getTime() })

  async function access(userId: number, familyId: string): Promise<string> {
    const issuedAt = Math.floor(now().getTime() / 1000)
    return new SignJWT({ sid: familyId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(userId))
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + limits.accessTokenSeconds)
      .sign(await key)
  }

  async function claimsOf(token: string, at: Date): Promise<AccessClaims> {
    const known = verified.get(token)
    // jose's rule: a token is expired from the second its exp names.
    if (known && Math.floor(at.getTime() / 1000) < known.expiresAt) return known
    try {
      const { payload } = await jwtVerify(token, await key, { algorithms: ['HS256'], currentDate: at })
      const userId = Number(payload.sub)
      if (!Number.isInteger(userId) || typeof payload.sid !== 'string' || typeof payload.exp !== 'number')
        throw new Error('claims')
      const claims = { userId, familyId: payload.sid, expiresAt: payload.exp }
      verified.set(token, claims)
      return claims
    } catch {
      verified.delete(token)
      throw new ApiError(401, messages.sessionExpired)
    }
  }

  /**
   * Whether a sign-in is live and `userId`'s: from memory when read less than signInCheckMs ago, else
   * one primary-key read. A token naming a live sign-in of another user is refused; the sign-in stays.
   */
  async function signInLive(familyId: string, userId: number, at: Date): Promise<boolean> {
    const state = signInStates.get(familyId)
    // A clock set back (negative age) makes the state stale rather than trusted for longer.
    const age = state ? at.getTime() - state.checkedAt : -1
    if (state && (!state.live || (age >= 0 && age < signInCheckMs)))
      return state.live && state.userId === userId
    const [row] = await db
      .select({ userId: signIns.userId, expiresAt: signIns.expiresAt, revokedAt: signIns.revokedAt })
      .from(signIns)
      .where(eq(signIns.id, familyId))
    const live = Boolean(row && !row.revokedAt && row.expiresAt > at)
    // A revocation by this instance while the row was being read wins over what the read saw.
    if (signInStates.get(familyId)?.live !== false)
      signInStates.set(familyId, { live, checkedAt: at.getTime(), userId: row?.userId })
    return live && row?.userId === userId
  }

  return {
    /** A new access token of `userId`'s sign-in `familyId`. */
    issue: access,

    /** The claims of a token whose signature checks out and whose sign-in is live and its user's; else a 401. */
    async verify(token: string): Promise<AccessClaims> {
      const at = now()
      const claims = await claimsOf(token, at)
      if (!(await signInLive(claims.familyId, claims.userId, at)))
        throw new ApiError(401, messages.sessionExpired)
      return claims
    },

    /** A sign-in that ended: its tokens are refused here at once, for good. */
    ended,
  }
}
