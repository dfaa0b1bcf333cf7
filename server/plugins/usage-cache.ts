// The usage answers kept until their year's version changes (server/usage/cache.ts). At close the
// answers waiting to be recompressed are dropped and the running one stops at its next piece.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type UsageCache, usageCache } from '../usage/cache.ts'

declare module 'fastify' {
  interface FastifyInstance {
    usageCache: UsageCache
  }
}

export const usageCachePlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('usageCache', usageCache(app.db, { log: app.log }))
    app.addHook('onClose', async () => app.usageCache.close())
  },
  { name: 'usage-cache', dependencies: ['database'] },
)
