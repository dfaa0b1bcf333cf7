// The view of every store (server/stores/view.ts), which the alert rules load and keep current
// (decision 131), and the stores overview, which answers from it where it holds a store (decision 138).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type StoreViews, storeViews } from '../stores/view.ts'
import { type StoresOverview, storesOverview } from '../usage/overview.ts'

declare module 'fastify' {
  interface FastifyInstance {
    storeViews: StoreViews
    storesOverview: StoresOverview
  }
}

export const storesOverviewPlugin = fp(
  async (app: FastifyInstance) => {
    const views = storeViews(app.db)
    app.decorate('storeViews', views)
    app.decorate('storesOverview', storesOverview(app.db, { views }))
  },
  { name: 'stores-overview', dependencies: ['database'] },
)
