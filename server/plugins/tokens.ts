// Access and refresh tokens and sign-ins (server/sign-in/tokens.ts), and what a signed-in request
// carries: the user, the sign-in and when its access token expires, set by the signed-in scope's guard.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isDeviceKey } from '../devices/keys.ts'
import { ApiError, messages } from '../errors.ts'
import { createTokens, type Tokens } from '../sign-in/tokens.ts'

declare module 'fastify' {
  interface FastifyInstance {
    tokens: Tokens
  }
  interface FastifyRequest {
    /** The signed-in user, set by the guard of the signed-in routes. */
    userId: number
    /** The sign-in of the bearer token (its family id), set with userId. */
    signInId: string
    /** When the bearer token expires (ms since the epoch, on the app's clock), set with userId. */
    accessExpiresAt: number
  }
}

export const tokensPlugin = fp(
  async (app: FastifyInstance, { secret }: { secret: string }) => {
    app.decorate('tokens', createTokens(app.db, secret, app.now, app.config.limits))
    app.decorateRequest('userId', 0)
    app.decorateRequest('signInId', '')
    app.decorateRequest('accessExpiresAt', 0)
  },
  { name: 'tokens', dependencies: ['database'] },
)

/** The signed-in scope's guard: a user's bearer token, else 401 (a device's key reads nothing). */
export function authenticate(app: FastifyInstance) {
  return async (request: FastifyRequest) => {
    const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1]
    if (!bearer) throw new ApiError(401, messages.loginRequired)
    // A device's key reads nothing (docs/product.md §11).
    if (isDeviceKey(bearer)) throw new ApiError(401, messages.deviceKeyElsewhere)
    const claims = await app.tokens.verifyAccess(bearer)
    request.userId = claims.userId
    request.signInId = claims.familyId
    request.accessExpiresAt = claims.expiresAt * 1000
  }
}
