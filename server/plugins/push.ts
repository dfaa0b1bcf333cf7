// Web Push (server/push/deliver.ts): sending to a user's subscriptions through the transport, made
// from the VAPID keys when first needed.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createPush, type Push } from '../push/deliver.ts'
import { vapidKeys } from '../push/keys.ts'
import type { PushTransport, VapidKeys } from '../push/transport.ts'

declare module 'fastify' {
  interface FastifyInstance {
    push: Push & { keys(): Promise<VapidKeys> }
  }
}

export interface PushOptions {
  /** How pushes go out, given the VAPID keys (web-push, or a test's fake). */
  transport: (keys: VapidKeys, subject: string) => PushTransport
}

export const pushPlugin = fp(
  async (app: FastifyInstance, { transport: makeTransport }: PushOptions) => {
    const { push: settings } = app.config
    // The VAPID keys are read (or generated) when first needed, once; a failed read is tried again.
    let keys: Promise<VapidKeys> | undefined
    const pushKeys = () => {
      keys ??= vapidKeys(app.db, settings.keys).catch((error: unknown) => {
        keys = undefined
        throw error
      })
      return keys
    }
    let transport: Promise<PushTransport> | undefined
    const push = createPush({
      db: app.db,
      transport: () => {
        transport ??= pushKeys().then((vapid) => makeTransport(vapid, settings.subject))
        return transport
      },
      now: app.now,
      log: app.log,
    })
    app.decorate('push', { ...push, keys: pushKeys })
  },
  { name: 'push', dependencies: ['database'] },
)
