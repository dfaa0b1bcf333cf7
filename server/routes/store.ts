// GET /api/v0/store/:id/usage?year=YYYY: the usage records of one store in one UTC year, oldest first.
// The contract's JSON for every client, or the compact encoding of docs/architecture.md to a
// client whose Accept names it and prefers it (our app).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorBody, UsageAnswer, UsageParams, UsageQuery, usageRevisionHeader } from '../../contract/api.ts'
import { compactUsageType, compactUsageTypeV2 } from '../../contract/usage-compact-type.ts'
import { ApiError, messages } from '../errors.ts'
import { uncompressedBody } from '../usage/answer.ts'
import { accepts, etagMatches, usageFormFor } from '../usage/negotiation.ts'

export const storeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/store/:id/usage',
    {
      // The answer is compressed by the usage cache and kept, so the on-the-fly compressor stays out of it.
      compress: false,
      schema: {
        summary: "A store's usage records of one UTC calendar year, oldest first (members only)",
        description:
          'Answers carry an ETag; send it back in If-None-Match to get 304 Not Modified while nothing changed. ' +
          `The answer is the JSON below unless Accept names \`${compactUsageType}\` with a q at least JSON's: ` +
          'then the same records come in that compact encoding (docs/architecture.md, "The compact usage encoding"), ' +
          `and when it names \`${compactUsageTypeV2}\` with a q at least that, in version 2 (the year's day sums first), ` +
          "with an ETag of its own. Both forms carry Vary: Accept, Accept-Encoding, and the year's revision in `Usage-Revision` " +
          '(0 before its first record): the `after` of the changes call, GET /api/v0/store/{id}/usage/changes.',
        params: UsageParams,
        querystring: UsageQuery,
        response: {
          200: {
            description: 'The records of the year, in the form Accept prefers',
            headers: {
              [usageRevisionHeader]: {
                type: 'integer',
                description:
                  "The year's revision (0 before its first record): `after` for GET /api/v0/store/{id}/usage/changes.",
              },
            },
            content: {
              'application/json': { schema: UsageAnswer },
              [compactUsageType]: {
                schema: Type.String({
                  format: 'binary',
                  description:
                    'The compact encoding, version 1 (docs/architecture.md, "The compact usage encoding"): only to a client whose Accept prefers it.',
                }),
              },
              [compactUsageTypeV2]: {
                schema: Type.String({
                  format: 'binary',
                  description:
                    "The compact encoding, version 2: the year's day sums and counts, then version 1's bytes (contract/usage-compact.md).",
                }),
              },
            },
          },
          304: Type.Null(),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const { year } = request.query
      const access = await app.storeAccess.yearAccessFor(request.userId, id, year)
      if (access === undefined) throw new ApiError(403, messages.forbidden)
      // Every record is a won amount: a member the owner hides them from gets none (docs/product.md §15).
      if (!access.seesMoney) throw new ApiError(403, messages.moneyHidden)
      const { revision } = access
      const answer = await app.usageCache.get(id, year, revision, usageFormFor(request.headers.accept))

      // no-store: the browser's HTTP cache must not keep the records, where any script of the origin
      // could read them after a logout. The app keeps the ETag with its own buckets and revalidates.
      reply
        .header('cache-control', 'no-store')
        .header('etag', answer.etag)
        .header('vary', 'accept, accept-encoding')
        .header(usageRevisionHeader, String(revision))
        .type(answer.type)
      // No payload at all (the schema's null is the absent body): a 304 has none, whatever the transport.
      if (etagMatches(request.headers['if-none-match'], answer.etag))
        return reply.code(304).send(undefined as unknown as null)

      const acceptEncoding = request.headers['accept-encoding']
      // The bodies are already serialized (the contract's UsageAnswer, or the compact bytes); Fastify
      // sends buffers as they are.
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
