// Builds the Fastify app: capabilities first, then the API routes, then the web app. Nothing here
// listens on a port, so tests use `app.inject` on exactly what production runs.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'
import { handleError, messages } from './errors.ts'
import { web } from './plugins/web.ts'

export interface AppOptions {
  config: Config
  database: Database
  /** Where logs go; standard output when not given. */
  logStream?: { write(line: string): void }
}

/** Request logs must never hold a refresh token, which the contract puts in the query string. */
export const redactUrl = (url: string) => url.replace(/([?&]token=)[^&]*/gi, '$1[redacted]')

export async function buildApp({ config, database, logStream }: AppOptions) {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(logStream ? { stream: logStream } : {}),
      serializers: {
        req: (request) => ({
          method: request.method,
          url: redactUrl(request.url),
          remoteAddress: request.ip,
        }),
      },
    },
    trustProxy: config.trustProxy,
    bodyLimit: 16 * 1024,
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.decorate('config', config)
  app.decorate('db', database.db)
  app.addHook('onClose', () => database.close())
  app.setErrorHandler(handleError)

  await app.register(
    async (api) => {
      api.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: messages.notFound }))
    },
    { prefix: '/api' },
  )
  await app.register(web, { webDir: config.webDir, imageDir: config.imageDir })
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    db: Database['db']
  }
}
