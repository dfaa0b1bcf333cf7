// PUT/POST/GET/DELETE /api/v0/user/phone and /user/sign (public), and GET /api/v0/user (signed in).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { eq } from 'drizzle-orm'
import { Type } from 'typebox'
import {
  ErrorBody,
  PhoneAnswer,
  PhoneRequest,
  ProfileAnswer,
  RefreshQuery,
  SignAnswer,
  SignOutQuery,
  SignRequest,
} from '../../contract/api.ts'
import { storeSignInOpens } from '../../contract/opened-store.ts'
import { users } from '../db/schema.ts'
import { ApiError, messages } from '../errors.ts'
import { knownDeviceCookie, knownDevicePath, knownDeviceSetCookie } from '../sign-in/known-device.ts'
import { REFRESH_RETRY_SECONDS, refreshRetryKeyCookie, retryKeyFrom } from '../sign-in/tokens.ts'
import { profileStores, storesOf } from '../store-access.ts'

declare module 'fastify' {
  interface FastifySchema {
    /** Cookies a route reads, for the OpenAPI document only (@fastify/swagger lists them; nothing validates them). */
    cookies?: unknown
  }
}

/** The refresh call's cookie, as the OpenAPI document describes it. */
const RefreshCookies = Type.Object({
  [refreshRetryKeyCookie]: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9._~-]{16,200}$',
      description:
        'Attempt key: a random string (128 bits or more) the client keeps with its refresh tokens and sends ' +
        `with every exchange of it, in this cookie (our app keeps it there, path /). If the answer is lost and the client presents the spent token again with the same key within ${REFRESH_RETRY_SECONDS} seconds, before the new refresh token has been used, it gets the ` +
        'same new refresh token again instead of the sign-in being revoked. Without it, with another key, or with ' +
        'a key that is not one, a spent token revokes the sign-in. A `retry` in the query is ignored: a URL is logged by proxies, so a key there is no key.',
    }),
  ),
})

export const signInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.put(
    '/user/phone',
    {
      schema: {
        summary: 'Send a sign-in code by SMS to a registered number (same answer for any number)',
        body: PhoneRequest,
        response: {
          200: {
            ...PhoneAnswer,
            headers: {
              'set-cookie': {
                type: 'string',
                description: `\`${knownDeviceCookie}\` with a new random device id, for a browser that sent none (HttpOnly, SameSite=Strict, Path=${knownDevicePath}, 400 days; Secure over https): the code is bound to it, so that only this browser may use it and another browser behind the same address can neither replace nor end it. A client that keeps no cookies signs in from the same address with the latest code it asked for there.`,
              },
            },
          },
          400: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { expiresIn, deviceId } = await app.otp.requestCode(
        request.body.phone,
        request.ip,
        request.headers.cookie,
      )
      if (deviceId !== undefined)
        reply.header('set-cookie', knownDeviceSetCookie(deviceId, request.protocol === 'https'))
      return { expiresIn }
    },
  )

  app.post(
    '/user/sign',
    {
      schema: {
        summary: 'Sign in with phone and code',
        body: SignRequest,
        response: {
          200: {
            ...SignAnswer,
            description: 'Signed in',
            headers: {
              'set-cookie': {
                type: 'string',
                description: `\`${knownDeviceCookie}\`: this browser is a known device of the number (HttpOnly, SameSite=Strict, Path=${knownDevicePath}, 400 days; Secure over https). Sent back with code requests and sign-ins, it exempts them from the number's daily bounds that strangers could use up.`,
              },
            },
          },
          400: ErrorBody,
          401: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const cookies = request.headers.cookie
      const { userId, knownDevice } = await app.otp.signIn(
        request.body.phone,
        request.body.code,
        request.ip,
        cookies,
      )
      // The store the app opens after this sign-in (the rule both sides run, contract/opened-store.ts),
      // so that it asks for its figures at once; looked up before the tokens are made, so that nothing
      // can fail between making them and sending them.
      const first = storeSignInOpens(await storesOf(app.db, userId))
      const token = await app.tokens.start(userId)
      reply.header('set-cookie', knownDeviceSetCookie(knownDevice, request.protocol === 'https'))
      return first ? { token, firstStoreId: first.id } : { token }
    },
  )

  app.get(
    '/user/sign',
    {
      schema: {
        summary: 'Trade a refresh token for a new pair (the old one is spent)',
        querystring: RefreshQuery,
        cookies: RefreshCookies,
        response: { 200: SignAnswer, 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (request) => ({
      token: await app.tokens.rotate(request.query.token, retryKeyFrom(request.headers.cookie)),
    }),
  )

  app.delete(
    '/user/sign',
    {
      schema: {
        summary: 'Sign out: revoke the sign-in the refresh token belongs to',
        querystring: SignOutQuery,
        response: { 204: Type.Null(), 400: ErrorBody },
      },
      // Every answer, an error too, tells the browser to drop its HTTP cache of this origin (where it
      // honours the header: secure origins, localhost included). Not "storage": that would also
      // unregister the service worker and its app shell, which the app needs to open offline; the app
      // wipes its own storage on logout.
      onSend: async (_request, reply, payload) => {
        reply.header('clear-site-data', '"cache"')
        return payload
      },
    },
    async (request, reply) => {
      await app.tokens.revoke(request.query.token)
      return reply.code(204).send(null)
    },
  )
}

export const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/user',
    {
      schema: {
        summary: 'The signed-in user and the stores they may see (the first is selected at sign-in)',
        response: { 200: ProfileAnswer, 401: ErrorBody },
      },
    },
    async (request) => {
      const [user] = await app.db
        .select({ id: users.id, name: users.name, phone: users.phone, image: users.image })
        .from(users)
        .where(eq(users.id, request.userId))
      if (!user) throw new ApiError(401, messages.sessionExpired)
      return { user, stores: await profileStores(app.db, user.id) }
    },
  )
}
