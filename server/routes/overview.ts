// GET /api/v0/stores/overview: every store of the caller at once, as the app's stores overview shows
// it, computed by the server with the app's own rules (server/usage/overview.ts, docs/product.md
// decisions 97–99). The stores are the caller's memberships, as in the profile and every store call.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorBody, StoresOverviewAnswer } from '../../contract/api.ts'

export const overviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stores/overview',
    {
      schema: {
        summary: 'Every store of the caller: today, the usual, the month, the last sale, quiet, devices',
        description:
          "For each store the caller is a member of (the profile's order): today (the UTC day) so far against the usual " +
          '(the same weekday of the previous 4 weeks up to the same time), the month so far against the month before up to ' +
          'the same elapsed time, the last sale of the year, the quiet-store rule, and its paired devices with those not heard ' +
          "from in 3 heartbeats; computed with the web app's own figures code, at the instant `at`.",
        response: { 200: StoresOverviewAnswer, 401: ErrorBody },
      },
    },
    async (request) => app.storesOverview.overview(request.userId, app.now()),
  )
}
