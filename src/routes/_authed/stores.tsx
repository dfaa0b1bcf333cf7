import { createFileRoute } from '@tanstack/react-router'
import { StoresOverview } from '../../features/stores/stores-overview.tsx'
import { currentPeriod } from '../../figures/clock.ts'
import { usageQuery } from '../../figures/year-query.ts'

// Every store at a glance (`/stores`): today, the month so far and the last sale of each, and which
// store is unusually quiet. Its own route chunk: the sales screen does not carry it.
export const Route = createFileRoute('/_authed/stores')({
  // Each store's figures: kept ones first, then fetched (at most 3 at once, figures/year-query.ts); a store the
  // sales screen already fetched is not fetched again.
  loader: async ({ context }) => {
    const queryClient = await context.queryClient()
    const { year } = currentPeriod()
    for (const storeId of context.session.storeIds())
      void queryClient.prefetchQuery(usageQuery(storeId, year))
  },
  component: StoresOverview,
})
