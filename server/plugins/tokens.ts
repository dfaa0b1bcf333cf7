// Access tokens are signed JWTs (HS256) that live ACCESS_TOKEN_SECONDS. Refresh tokens are 256 random
// bits, stored only as SHA-256 hashes, that rotate on every use within a sign-in "family" whose absolute
// lifetime is REFRESH_TOKEN_DAYS; presenting an already rotated token revokes the whole family.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { and, eq, gt, isNull, lt } from 'drizzle-orm'
import { jwtVerify, SignJWT } from 'jose'
import { LRUCache } from 'lru-cache'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { refreshTokens } from '../db/schema.ts'
import { ApiError, messages } from '../errors.ts'

export interface TokenPair {
  access: string
  refresh: string
}

export interface AccessClaims {
  userId: number
  familyId: string
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

/** Access tokens already verified, so a busy screen's requests (a 304 costs ~3 ms in all) skip the HMAC. */
const verifiedTokensKept = 1000

export function createTokens(db: Db, secret: string, now: () => Date, limits: Config['limits']) {
  // Imported once: jose would otherwise import raw key bytes into a CryptoKey on every call.
  const key = crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  )
  /** Claims of tokens whose signature checked out, with their expiry (seconds), which is still checked on every use. */
  const verified = new LRUCache<string, AccessClaims & { expiresAt: number }>({ max: verifiedTokensKept })

  async function access(userId: number, familyId: string): Promise<string> {
    const issuedAt = Math.floor(now().getTime() / 1000)
    return new SignJWT({ sid: familyId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(userId))
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + limits.accessTokenSeconds)
      .sign(await key)
  }

  async function pair(userId: number, familyId: string, expiresAt: Date): Promise<TokenPair> {
    const refresh = randomBytes(32).toString('base64url')
    await db.insert(refreshTokens).values({ tokenHash: hashToken(refresh), familyId, userId, expiresAt })
    return { access: await access(userId, familyId), refresh }
  }

  return {
    /** A new sign-in: a new family and its first pair of tokens. */
    async start(userId: number): Promise<TokenPair> {
      const at = now()
      await db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, at))
      return pair(userId, randomUUID(), new Date(at.getTime() + limits.refreshTokenDays * 86_400_000))
    },

    async verifyAccess(token: string): Promise<AccessClaims> {
      const at = now()
      const known = verified.get(token)
      // jose's rule: a token is expired from the second its exp names.
      if (known && Math.floor(at.getTime() / 1000) < known.expiresAt)
        return { userId: known.userId, familyId: known.familyId }
      try {
        const { payload } = await jwtVerify(token, await key, { algorithms: ['HS256'], currentDate: at })
        const userId = Number(payload.sub)
        if (!Number.isInteger(userId) || typeof payload.sid !== 'string' || typeof payload.exp !== 'number')
          throw new Error('claims')
        verified.set(token, { userId, familyId: payload.sid, expiresAt: payload.exp })
        return { userId, familyId: payload.sid }
      } catch {
        verified.delete(token)
        throw new ApiError(401, messages.sessionExpired)
      }
    },

    /** Trades a refresh token for a new pair; the old one is spent. */
    async rotate(refresh: string): Promise<TokenPair> {
      const at = now()
      const tokenHash = hashToken(refresh)
      // One conditional update decides, so two concurrent uses of one token cannot both succeed.
      const [spent] = await db
        .update(refreshTokens)
        .set({ rotatedAt: at })
        .where(
          and(
            eq(refreshTokens.tokenHash, tokenHash),
            isNull(refreshTokens.rotatedAt),
            isNull(refreshTokens.revokedAt),
            gt(refreshTokens.expiresAt, at),
          ),
        )
        .returning()
      if (spent) return pair(spent.userId, spent.familyId, spent.expiresAt)

      const [known] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash))
      if (known?.rotatedAt && !known.revokedAt) {
        // A spent token came back: it was stolen, or the thief already used it. End the sign-in.
        await db
          .update(refreshTokens)
          .set({ revokedAt: at })
          .where(eq(refreshTokens.familyId, known.familyId))
      }
      throw new ApiError(401, known && known.expiresAt <= at ? messages.sessionExpired : messages.token)
    },

    /** Ends the sign-in that a refresh token belongs to; unknown tokens are ignored. */
    async revoke(refresh: string): Promise<void> {
      const [known] = await db
        .select({ familyId: refreshTokens.familyId })
        .from(refreshTokens)
        .where(eq(refreshTokens.tokenHash, hashToken(refresh)))
      if (known) {
        await db
          .update(refreshTokens)
          .set({ revokedAt: now() })
          .where(and(eq(refreshTokens.familyId, known.familyId), isNull(refreshTokens.revokedAt)))
      }
    },
  }
}

export type Tokens = ReturnType<typeof createTokens>
