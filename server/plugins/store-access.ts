// Who may see which store (server/store-access.ts), for every route that names a store.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type StoreAccess, storeAccess } from '../store-access.ts'

declare module 'fastify' {
  interface FastifyInstance {
    storeAccess: StoreAccess
  }
}

export const storeAccessPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorate('storeAccess', storeAccess(app.db))
  },
  { name: 'store-access', dependencies: ['database'] },
)
