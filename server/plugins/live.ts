// Live changes (server/live/live.ts): the held calls of this instance and the one listening
// connection that wakes them, started here; a sign-in's end, told by any instance, reaches the token
// checks at once. Held calls answer at the server's preClose (connections.ts), the listening stops at close.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Database } from '../db/client.ts'
import { createLive, type Live } from '../live/live.ts'

declare module 'fastify' {
  interface FastifyInstance {
    live: Live
    /** How often a streamed held call with nothing to say sends a comment. */
    streamHeartbeatMs: number
  }
}

export interface LiveOptions {
  database: Database
  /** The safety poll's period (server/live/live.ts); tests shorten it. */
  pollMs?: number | undefined
  /** How often a streamed held call with nothing to say sends a comment (server/live/stream.ts). */
  streamHeartbeatMs: number
}

export const livePlugin = fp(
  async (app: FastifyInstance, { database, pollMs, streamHeartbeatMs }: LiveOptions) => {
    const tokens = app.tokens
    app.decorate(
      'live',
      createLive({
        database,
        now: app.now,
        log: app.log,
        pollMs,
        onSignInEnded: (signInId) => tokens.signInEnded(signInId),
      }),
    )
    await app.live.start(database.connectionString)
    app.decorate('streamHeartbeatMs', streamHeartbeatMs)
    app.addHook('onClose', async () => app.live.close())
  },
  { name: 'live', dependencies: ['database', 'tokens'] },
)
