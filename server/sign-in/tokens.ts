// Sign-ins and their tokens. Access tokens are signed JWTs that name their sign-in (access-tokens.ts,
// which also says when one is accepted). Refresh tokens are 256 random bits (or, when the client sent
// an attempt key, 256 bits of HMAC under the server's secret), stored only as SHA-256 hashes, that
// rotate on every use within a sign-in (table sign_ins) whose absolute lifetime is REFRESH_TOKEN_DAYS;
// presenting an already rotated token revokes the sign-in, except for the client's idempotent retry of
// a rotation whose answer it lost (see `rotate` and REFRESH_RETRY_SECONDS).
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { and, eq, isNull, lt } from 'drizzle-orm'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { refreshTokens, signIns } from '../db/schema.ts'
import { ApiError, messages } from '../errors.ts'
import { createAccessTokens } from './access-tokens.ts'
import { cookieValues } from './cookies.ts'

export interface TokenPair {
  access: string
  refresh: string
}

/** JWT_SECRET, or outside production a secret generated once and kept in the data directory. */
export function jwtSecret(config: Config): string {
  if (config.jwtSecret) return config.jwtSecret
  const file = path.join(config.dataDir, 'jwt-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(config.dataDir, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, `${secret}\n`, { mode: 0o600 })
  return secret
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

/**
 * How long after a rotation the client may present the spent refresh token again with the same
 * attempt key and be given the same successor (docs/product.md §4.3): long enough for a phone on a
 * weak signal whose answer was lost to try again, short enough that a spent token is soon only
 * evidence of theft. After it, the spent token comes back as reuse and ends the sign-in.
 */
export const REFRESH_RETRY_SECONDS = 120

/**
 * The cookie that carries the client's attempt key with an exchange (docs/product.md §4.3). The app
 * keeps the key in it already (path `/`), so the browser sends it with the call; never the URL, which
 * reverse proxies, load balancers and APM tools log: a URL alone must be worth no more than a logout.
 */
export const refreshRetryKeyCookie = 'refreshRetryKey'

/** What an attempt key looks like: 16 to 200 URL-safe characters (the app makes 32 hex digits). */
const retryKeyPattern = /^[A-Za-z0-9._~-]{16,200}$/

/**
 * The attempt key a Cookie header carries, or undefined: none, or nothing that is one. A malformed
 * key is no key (the exchange goes on without one) rather than a 400, which the app would take for
 * a sign-in that is gone.
 */
export const retryKeyFrom = (cookieHeader: string | undefined) =>
  cookieValues(cookieHeader, refreshRetryKeyCookie).find((value) => retryKeyPattern.test(value))

type RotateOutcome =
  | { userId: number; familyId: string; refresh: string }
  | { error: string; revoked?: string }

export function createTokens(db: Db, secret: string, now: () => Date, limits: Config['limits']) {
  const accessTokens = createAccessTokens(db, secret, now, limits)
  /**
   * The refresh token that follows the token whose hash is `tokenHash` when it is rotated with the
   * attempt key `retryKey`: 256 bits of HMAC under the server's secret, so only the server can work it
   * out, and it can give the same answer again without ever storing the token in the clear.
   */
  const successorOf = (tokenHash: string, retryKey: string) =>
    createHmac('sha256', secret).update(`refresh-successor:${tokenHash}:${retryKey}`).digest('base64url')

  return {
    /** A new sign-in and its first pair of tokens. */
    async start(userId: number): Promise<TokenPair> {
      const at = now()
      const familyId = randomUUID()
      const refresh = randomBytes(32).toString('base64url')
      await db.transaction(async (tx) => {
        // Expired sign-ins go, and their refresh tokens with them (on delete cascade).
        await tx.delete(signIns).where(lt(signIns.expiresAt, at))
        const expiresAt = new Date(at.getTime() + limits.refreshTokenDays * 86_400_000)
        await tx.insert(signIns).values({ id: familyId, userId, expiresAt })
        await tx.insert(refreshTokens).values({ tokenHash: hashToken(refresh), familyId })
      })
      return { access: await accessTokens.issue(userId, familyId), refresh }
    },

    verifyAccess: accessTokens.verify,

    /**
     * Trades a refresh token for a new pair; the old one is spent. One transaction that locks the
     * sign-in row decides: of two concurrent uses of one token one wins, and the other, finding the
     * token spent once the lock is its own, revokes the sign-in, the winner's new token with it.
     *
     * `retryKey` is the client's attempt key, a random string it keeps with the refresh token and
     * sends with every exchange of it, in a cookie (`retryKeyFrom`), never in the URL. A token rotated with a key gets a successor derived from the
     * token and the key (`successorOf`), and the key's hash is kept on the spent token's row. When the
     * spent token comes back with the same key within REFRESH_RETRY_SECONDS, while its successor is
     * still the sign-in's unspent token and the sign-in live, the answer was lost on the way: the same
     * successor is given again, with a fresh access token, and nothing is revoked. Anything else (no
     * key, another key, the successor already used, too late) is reuse and revokes the sign-in.
     *
     * Two concurrent uses with the same key both get the same successor: that is one token, held by
     * whoever holds both the refresh token and its key, not a second survivor. Two concurrent uses
     * without a key or with different keys still end the sign-in, and no token of it survives.
     */
    async rotate(refresh: string, retryKey?: string): Promise<TokenPair> {
      const at = now()
      const tokenHash = hashToken(refresh)
      const retryKeyHash = retryKey === undefined ? null : hashToken(retryKey)
      const outcome = await db.transaction(async (tx): Promise<RotateOutcome> => {
        const [token] = await tx
          .select({ familyId: refreshTokens.familyId })
          .from(refreshTokens)
          .where(eq(refreshTokens.tokenHash, tokenHash))
        if (!token) return { error: messages.token }
        const [signIn] = await tx.select().from(signIns).where(eq(signIns.id, token.familyId)).for('update')
        if (!signIn || signIn.revokedAt) return { error: messages.token }
        if (signIn.expiresAt <= at) return { error: messages.sessionExpired }
        // Read again under the lock: a concurrent rotation of this token has committed by now.
        const [current] = await tx
          .select({ rotatedAt: refreshTokens.rotatedAt, retryKeyHash: refreshTokens.retryKeyHash })
          .from(refreshTokens)
          .where(eq(refreshTokens.tokenHash, tokenHash))
        if (!current) return { error: messages.token }
        if (current.rotatedAt) {
          if (retryKey !== undefined && current.retryKeyHash === retryKeyHash) {
            const age = at.getTime() - current.rotatedAt.getTime()
            const successor = successorOf(tokenHash, retryKey)
            const [next] =
              age >= 0 && age <= REFRESH_RETRY_SECONDS * 1000
                ? await tx
                    .select({ familyId: refreshTokens.familyId, rotatedAt: refreshTokens.rotatedAt })
                    .from(refreshTokens)
                    .where(eq(refreshTokens.tokenHash, hashToken(successor)))
                : []
            // The owner's retry of a rotation whose answer was lost: the same successor again.
            if (next && next.familyId === signIn.id && !next.rotatedAt)
              return { userId: signIn.userId, familyId: signIn.id, refresh: successor }
          }
          // A spent token came back: it was stolen, or the thief already used it. End the sign-in, and
          // nothing more: a spent token is also what a proxy's log holds, and a URL replayed from there
          // must be worth no more than a logout (decision 33), so the number's known devices keep their
          // credentials; an administrator's sign-out ends those (decision 38).
          await tx.update(signIns).set({ revokedAt: at }).where(eq(signIns.id, signIn.id))
          return { error: messages.token, revoked: signIn.id }
        }
        await tx
          .update(refreshTokens)
          .set({ rotatedAt: at, retryKeyHash })
          .where(eq(refreshTokens.tokenHash, tokenHash))
        // With a key the successor can be derived again for a retry; without one it is simply random.
        const next =
          retryKey === undefined ? randomBytes(32).toString('base64url') : successorOf(tokenHash, retryKey)
        await tx.insert(refreshTokens).values({ tokenHash: hashToken(next), familyId: signIn.id })
        return { userId: signIn.userId, familyId: signIn.id, refresh: next }
      })
      if ('error' in outcome) {
        if (outcome.revoked) accessTokens.ended(outcome.revoked)
        throw new ApiError(401, outcome.error)
      }
      return { access: await accessTokens.issue(outcome.userId, outcome.familyId), refresh: outcome.refresh }
    },

    /**
     * A sign-in another instance (or a command) ended, as heard by the live changes' listener
     * (server/live/live.ts): refused here at once instead of within signInCheckMs.
     */
    signInEnded(familyId: string) {
      accessTokens.ended(familyId)
    },

    /** Ends the sign-in that a refresh token belongs to; unknown tokens are ignored. */
    async revoke(refresh: string): Promise<void> {
      const [known] = await db
        .select({ familyId: refreshTokens.familyId })
        .from(refreshTokens)
        .where(eq(refreshTokens.tokenHash, hashToken(refresh)))
      if (!known) return
      // The update waits for a rotation that holds the row's lock, so a pair it issued ends too.
      await db
        .update(signIns)
        .set({ revokedAt: now() })
        .where(and(eq(signIns.id, known.familyId), isNull(signIns.revokedAt)))
      accessTokens.ended(known.familyId)
    },
  }
}

export type Tokens = ReturnType<typeof createTokens>
