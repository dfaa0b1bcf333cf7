// The device's calls (docs/product.md §11): pairing (with the owner's code), sales batches and
// heartbeats (with the device's key: `Authorization: Bearer dk_…`). A user's access token is not a key
// (401 here), and a key is refused on every other call (the signed-in scope's guard, server/plugins/api.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { Type } from 'typebox'
import {
  ErrorBody,
  generationHeader,
  HeartbeatRequest,
  idempotencyKeyPattern,
  PairAnswer,
  PairRequest,
  SalesAnswer,
  SalesRequest,
} from '../../contract/api.ts'
import { maxSalesBytes, maxSalesPerBatch } from '../../domain/devices.ts'
import { isMachineName } from '../../domain/machines.ts'
import { checkSales, parseInstant } from '../../domain/sales.ts'
import { authenticateDevice } from '../devices/auth.ts'
import { recordHeartbeat } from '../devices/heartbeat.ts'
import { ingestBatch } from '../devices/ingest.ts'
import { isDeviceKey } from '../devices/keys.ts'
import { pairDevice } from '../devices/pairing.ts'
import { ApiError, handleError, messages } from '../errors.ts'
import { clientKey, rateLimited } from '../rate-limit.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The device whose key the request carries, set by the device scope's guard. */
    device: { id: number; storeId: number }
  }
}

const idempotencyKey = new RegExp(idempotencyKeyPattern)

/** The device's clock minus the server's (ms), from a `sentAt`; null without one; 400 for a bad one. */
function skewOf(sentAt: string | undefined, now: Date): number | null {
  if (sentAt === undefined) return null
  // The future bound of a sale does not apply to a clock: any offset is a skew to report.
  const parsed = parseInstant(sentAt, new Date(8.64e15))
  if (typeof parsed === 'string') throw new ApiError(400, messages.sentAt)
  return parsed.getTime() - now.getTime()
}

export const devicePairRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/device/pair',
    {
      schema: {
        summary: "Pair a device with the owner's pairing code: its key, shown this once",
        description:
          'The key is stored only as a hash. Attempts are limited per client address (429 with Retry-After).',
        body: PairRequest,
        response: {
          200: PairAnswer,
          401: { ...ErrorBody, description: 'The code is wrong, used, expired, or its device revoked' },
          429: ErrorBody,
        },
      },
    },
    async (request) => {
      const now = app.now()
      const paired = await pairDevice(app.db, {
        code: request.body.code,
        client: clientKey(request.ip),
        now,
        perHour: app.config.limits.pairAttemptsPerIpPerHour,
      })
      if (paired.ok) return { deviceId: paired.deviceId, storeId: paired.storeId, key: paired.key }
      if (paired.reason === 'limit') throw rateLimited(paired.refusal, now)
      throw new ApiError(401, messages.pairingCode)
    },
  )
}

/** The device scope's onRoute hook: the device key's scheme, its 401 and its 429 in every operation. */
function requireDeviceKey(route: RouteOptions) {
  const schema = (route.schema ?? {}) as { response?: Record<string, unknown> }
  const response = { ...schema.response }
  response[401] ??= { ...ErrorBody, description: 'No device key, or one that is unknown or revoked' }
  response[429] ??= { ...ErrorBody, description: 'Too many requests with this key (Retry-After)' }
  route.schema = { ...schema, security: [{ deviceKey: [] }], response }
}

export const deviceKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('device', null as unknown as FastifyRequest['device'])
  app.addHook('onRoute', requireDeviceKey)
  app.addHook('onRequest', async (request) => {
    const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1]
    if (!bearer || !isDeviceKey(bearer)) throw new ApiError(401, messages.deviceKeyRequired)
    const now = app.now()
    const auth = await authenticateDevice(app.db, {
      key: bearer,
      now,
      perMinute: app.config.limits.deviceRequestsPerMinute,
    })
    if (!auth.ok && auth.reason === 'limit') throw rateLimited(auth.refusal, now)
    if (!auth.ok) throw new ApiError(401, messages.deviceKey)
    request.device = { id: auth.id, storeId: auth.storeId }
  })

  app.post(
    '/device/sales',
    {
      bodyLimit: maxSalesBytes,
      // A body over the limit gets this call's own message.
      errorHandler: (error, request, reply: FastifyReply) => {
        if ((error as { statusCode?: number }).statusCode === 413)
          return reply.code(413).send({ message: messages.salesTooLarge })
        return handleError(error as Parameters<typeof handleError>[0], request, reply)
      },
      schema: {
        summary: "A batch of the device's sales, stored exactly once per device and sale id",
        description:
          'Each bad sale is rejected by itself (`rejected`, with a Korean message); the good ones are stored. ' +
          'Idempotency-Key (1–255 visible characters, kept at least 24 hours): the same key with the same sales ' +
          'answers the first answer again and stores nothing; with other sales 422; while the first is still ' +
          'running 409; missing 400.',
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({ description: "The batch's key: 1–255 visible ASCII characters" }),
          ),
        }),
        body: SalesRequest,
        response: {
          200: SalesAnswer,
          400: ErrorBody,
          409: { ...ErrorBody, description: 'A request with this Idempotency-Key is still running' },
          413: { ...ErrorBody, description: 'Body over 64 KiB' },
          422: { ...ErrorBody, description: 'This Idempotency-Key was used for other sales' },
        },
      },
    },
    async (request) => {
      const key = request.headers['idempotency-key']
      if (key === undefined) throw new ApiError(400, messages.idempotencyKeyMissing)
      if (typeof key !== 'string' || !idempotencyKey.test(key))
        throw new ApiError(400, messages.idempotencyKeyBad)
      const { sales, sentAt } = request.body
      if (sales.length > maxSalesPerBatch) throw new ApiError(400, messages.tooManySales)
      const now = app.now()
      const skewMs = skewOf(sentAt, now)
      const checked = checkSales(sales, now)
      const result = await ingestBatch(app.db, {
        device: request.device,
        key,
        sales,
        ...checked,
        skewMs,
        now,
      })
      if (result.kind === 'running') throw new ApiError(409, messages.idempotencyKeyRunning, 1)
      if (result.kind === 'other-body') throw new ApiError(422, messages.idempotencyKeyReused)
      if (result.kind === 'revoked') throw new ApiError(401, messages.deviceKey)
      return result.answer
    },
  )

  app.post(
    '/device/heartbeat',
    {
      schema: {
        summary: 'The device is alive: the sales waiting in its queue (and its clock, for the skew)',
        description:
          "Our additions (docs/product.md §14): its machines' states (at most 64, each once), its payment terminal " +
          'and the payments that failed since its last heartbeat; a bad one is 400 and nothing is kept.',
        body: HeartbeatRequest,
        response: {
          400: ErrorBody,
          204: {
            ...Type.Null(),
            description: "Recorded; the database's generation in the Database-Generation header",
            headers: {
              [generationHeader]: {
                type: 'string',
                description:
                  "The database's generation, as `generation` in a sales answer: when it differs from the last one the device saw, send again the sales acknowledged in the last 7 days.",
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const now = app.now()
      const skewMs = skewOf(request.body.sentAt, now)
      const { pending, machines, terminal, failedPayments } = request.body
      const names = machines?.map((report) => report.machine) ?? []
      // A code is shown as sent: visible characters only, as a name (nothing the database could not keep).
      const codes = machines?.flatMap((report) => (report.code === undefined ? [] : [report.code])) ?? []
      if (!names.every(isMachineName) || new Set(names).size < names.length || !codes.every(isMachineName))
        throw new ApiError(400, messages.heartbeatMachines)
      const recorded = await recordHeartbeat(app.db, {
        device: request.device,
        pending,
        skewMs,
        machines,
        terminal,
        failedPayments,
        now,
      })
      if (!recorded) throw new ApiError(401, messages.deviceKey)
      // An error or a terminal down just confirmed, or failed payments: the store's rules now, not at the
      // next minute (decision 188); a few queries on a rare heartbeat, the pushes after the answer.
      if (recorded.alerting) await app.alertsAfterHeartbeat(request.device.storeId)
      return reply.code(204).header(generationHeader, recorded.generation).send(null)
    },
  )
}
