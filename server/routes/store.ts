// GET /api/v0/store/:id/usage?year=YYYY: the usage records of one store in one UTC year, oldest first.
// The contract's JSON for every client, or the compact encoding of docs/architecture.md to a
// client whose Accept names it and prefers it (our app).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorBody, UsageAnswer, UsageParams, UsageQuery } from '../../contract/api.ts'
import { isCompactUsageType } from '../../contract/usage-compact.ts'
import { compactUsageType } from '../../contract/usage-compact-type.ts'
import { ApiError, messages } from '../errors.ts'
import { type UsageForm, uncompressedBody } from '../usage.ts'

/** Whether a client accepts an encoding (a q=0 refusal counts as not accepting). */
function accepts(header: string | undefined, encoding: string) {
  return (header ?? '').split(',').some((part) => {
    const [name, ...params] = part.trim().split(';')
    return name?.trim().toLowerCase() === encoding && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))
  })
}

/** The q of an Accept entry (1 when it names none, 0 when it is not a number in 0..1). */
function quality(params: string[]) {
  const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)).find(Boolean)
  if (!q) return 1
  const value = Number(q[1])
  return value >= 0 && value <= 1 ? value : 0
}

/**
 * The form to answer: compact only when Accept names our compact type (version 1) with a q above
 * zero and at least the q it gives JSON (through `application/json`, `application/*` or `*\/*`, the
 * most specific one present). Wildcards alone never bring the compact form, and no Accept, or one
 * that refuses both, gets the contract's JSON as always.
 */
export function usageFormFor(accept: string | undefined): UsageForm {
  let compact = 0
  let json: { q: number; specificity: number } = { q: 0, specificity: -1 }
  for (const entry of (accept ?? '').split(',')) {
    const [name = '', ...params] = entry.split(';')
    const type = name.trim().toLowerCase()
    const q = quality(params)
    if (isCompactUsageType(entry)) compact = Math.max(compact, q)
    const specificity =
      type === 'application/json' ? 2 : type === 'application/*' ? 1 : type === '*/*' ? 0 : -1
    if (specificity > json.specificity) json = { q, specificity }
  }
  return compact > 0 && compact >= json.q ? 'compact' : 'json'
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
      // The answer is compressed by the usage cache and kept, so the on-the-fly compressor stays out of it.
      compress: false,
      schema: {
        summary: "A store's usage records of one UTC calendar year, oldest first (members only)",
        description:
          'Answers carry an ETag; send it back in If-None-Match to get 304 Not Modified while nothing changed. ' +
          `The answer is the JSON below unless Accept names \`${compactUsageType}\` with a q at least JSON's: ` +
          'then the same records come in that compact encoding (docs/architecture.md, "The compact usage encoding"), ' +
          'with an ETag of its own. Both forms carry Vary: Accept, Accept-Encoding.',
        security: [{ bearer: [] }],
        params: UsageParams,
        querystring: UsageQuery,
        response: {
          200: {
            description: 'The records of the year, in the form Accept prefers',
            content: {
              'application/json': { schema: UsageAnswer },
              [compactUsageType]: {
                schema: Type.String({
                  format: 'binary',
                  description:
                    'The compact encoding, version 1 (docs/architecture.md, "The compact usage encoding"): only to a client whose Accept prefers it.',
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
      // Not a member and no such store look the same, so store ids cannot be probed.
      const version = await app.usageCache.versionFor(request.userId, id, year)
      if (version === undefined) throw new ApiError(403, messages.forbidden)
      const answer = await app.usageCache.get(id, year, version, usageFormFor(request.headers.accept))

      // no-store: the browser's HTTP cache must not keep the records, where any script of the origin
      // could read them after a logout. The app keeps the ETag with its own buckets and revalidates.
      reply
        .header('cache-control', 'no-store')
        .header('etag', answer.etag)
        .header('vary', 'accept, accept-encoding')
        .type(answer.type)
      if (etagMatches(request.headers['if-none-match'], answer.etag)) return reply.code(304).send(null)

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
