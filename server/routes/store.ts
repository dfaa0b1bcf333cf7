// GET /api/v0/store/:id/usage?year=YYYY: the usage records of one store in one UTC year, oldest first.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorBody, UsageAnswer, UsageParams, UsageQuery } from '../../contract/api.ts'
import { ApiError, messages } from '../errors.ts'
import { memberVersion, usageJson } from '../usage.ts'

export const storeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/store/:id/usage',
    {
      schema: {
        summary: "A store's usage records of one UTC calendar year, oldest first (members only)",
        security: [{ bearer: [] }],
        params: UsageParams,
        querystring: UsageQuery,
        response: { 200: UsageAnswer, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const { year } = request.query
      // Not a member and no such store look the same, so store ids cannot be probed.
      const version = await memberVersion(app.db, request.userId, id, year)
      if (version === undefined) throw new ApiError(403, messages.forbidden)
      // Already serialized (by the database); Fastify sends a string as it is.
      const body = (await usageJson(app.db, id, year)) as unknown as UsageAnswer
      return reply
        .header('cache-control', 'private, no-cache')
        .type('application/json; charset=utf-8')
        .send(body)
    },
  )
}
