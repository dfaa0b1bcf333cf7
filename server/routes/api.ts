// The API under /api: the OpenAPI document, and version 0's calls: sign-in and the device's own calls
// in the open scope (each guards itself), everything else in the signed-in scope (a user's bearer token).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { messages } from '../errors.ts'
import { authenticate } from '../plugins/tokens.ts'
import { requireBearer } from '../statuses.ts'
import { changesRoutes } from './changes.ts'
import { deviceKeyRoutes, devicePairRoutes } from './device-api.ts'
import { machinesRoutes } from './machines.ts'
import { overviewRoutes } from './overview.ts'
import { pushRoutes } from './push.ts'
import { storeRoutes } from './store.ts'
import { deviceOwnerRoutes } from './store-devices.ts'
import { teamRoutes } from './team.ts'
import { profileRoutes, signInRoutes } from './user.ts'

export const apiRoutes: FastifyPluginAsyncTypebox = async (api) => {
  // Answers that carry tokens or personal data are never stored by caches unless a route says so.
  api.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
  })
  api.get('/openapi.json', { schema: { hide: true } }, () => api.swagger())
  await api.register(
    async (v0) => {
      await v0.register(signInRoutes)
      await v0.register(devicePairRoutes)
      await v0.register(deviceKeyRoutes)
      await v0.register(async (guarded) => {
        guarded.addHook('onRoute', requireBearer)
        guarded.addHook('onRequest', authenticate(guarded))
        await guarded.register(profileRoutes)
        await guarded.register(storeRoutes)
        await guarded.register(overviewRoutes)
        await guarded.register(changesRoutes)
        await guarded.register(deviceOwnerRoutes)
        await guarded.register(machinesRoutes)
        await guarded.register(pushRoutes)
        await guarded.register(teamRoutes)
      })
    },
    { prefix: '/v0' },
  )
  api.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: messages.notFound }))
}
