// GET /api/v0/store/:id/usage?year=YYYY: the usage records of one store in one UTC year, oldest first.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorBody, UsageAnswer, UsageParams, UsageQuery } from '../../contract/api.ts'
import { ApiError, messages } from '../errors.ts'
import { uncompressedBody } from '../usage.ts'

/** Whether a client accepts an encoding (a q=0 refusal counts as not accepting). */
function accepts(header: string | undefined, encoding: string) {
  return (header ?? '').split(',').some((part) => {
    const [name, ...params] = part.trim().split(';')
    return name?.trim().toLowerCase() === encoding && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))
  })
}

const etagMatches = (header: string | undefined, etag: string) =>
  (header ?? '').split(',').some((tag) => {
    const candidate = tag.trim()
    return candidate === '*' || candidate.replace(/^W\//, '') === etag.replace(/^W\//, '')
  })

export const storeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/store/:id/usage',
    {
      // The answer is compressed once and kept, so the on-the-fly compressor stays out of it.
      compress: false,
      schema: {
        summary: "A store's usage records of one UTC calendar year, oldest first (members only)",
        description:
          'Answers carry an ETag; send it back in If-None-Match to get 304 Not Modified while nothing changed.',
        security: [{ bearer: [] }],
        params: UsageParams,
        querystring: UsageQuery,
        response: { 200: UsageAnswer, 304: Type.Null(), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const { year } = request.query
      // Not a member and no such store look the same, so store ids cannot be probed.
      const version = await app.usageCache.versionFor(request.userId, id, year)
      if (version === undefined) throw new ApiError(403, messages.forbidden)
      const answer = await app.usageCache.get(id, year, version)

      // no-store: the browser's HTTP cache must not keep the records, where any script of the origin
      // could read them after a logout. The app keeps the ETag with its own buckets and revalidates.
      reply
        .header('cache-control', 'no-store')
        .header('etag', answer.etag)
        .header('vary', 'accept-encoding')
        .type('application/json; charset=utf-8')
      if (etagMatches(request.headers['if-none-match'], answer.etag)) return reply.code(304).send(null)

      const acceptEncoding = request.headers['accept-encoding']
      // The bodies are the contract's UsageAnswer, already serialized; Fastify sends buffers as they are.
      let body: Buffer
      if (accepts(acceptEncoding, 'br')) {
        reply.header('content-encoding', 'br')
        body = answer.brotli
      } else if (accepts(acceptEncoding, 'gzip')) {
        reply.header('content-encoding', 'gzip')
        body = answer.gzip
      } else {
        body = await uncompressedBody(answer)
      }
      return reply.send(body as unknown as UsageAnswer)
    },
  )
}
