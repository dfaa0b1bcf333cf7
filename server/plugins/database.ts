// The database, the settings and the clock: what every other capability stands on. Its close is the
// server's last (Fastify closes the capabilities registered after it first).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import type { Database } from '../db/client.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    db: Database['db']
    now: () => Date
  }
}

export interface DatabaseOptions {
  config: Config
  database: Database
  /** The clock every time limit reads; tests move it. */
  now: () => Date
}

export const databasePlugin = fp(
  async (app: FastifyInstance, { config, database, now }: DatabaseOptions) => {
    app.decorate('config', config)
    app.decorate('db', database.db)
    app.decorate('now', now)
    app.addHook('onClose', async () => database.close())
  },
  { name: 'database' },
)
