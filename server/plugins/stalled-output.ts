// A client that stops reading loses its connection after sendStallMs instead of pinning its answer
// (decision 158; server/live/stalled-output.ts). Registered first: its watch is the first onRequest hook,
// and its timer the last thing to stop at close.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { watchStalledOutput } from '../live/stalled-output.ts'

export const stalledOutputPlugin = fp(
  async (app: FastifyInstance, { sendStallMs }: { sendStallMs: number }) => {
    const stalled = watchStalledOutput(sendStallMs)
    app.addHook('onRequest', async (_request, reply) => stalled.watch(reply.raw))
    app.addHook('onClose', async () => stalled.close())
  },
  { name: 'stalled-output' },
)
