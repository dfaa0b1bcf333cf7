import { createFileRoute } from '@tanstack/react-router'
import type { StoresOverviewAnswer } from '../../../contract/api.ts'
import { StoresOverview } from '../../features/stores/stores-overview.tsx'
import { currentPeriod } from '../../figures/clock.ts'
import { usageKeys, usageQuery } from '../../figures/year-query.ts'
import { requestJson } from '../../lib/api.ts'

// Every store at a glance (`/stores`): today, the month so far and the last sale of each, and which
// store is unusually quiet. Its own route chunk: the sales screen does not carry it.
export const Route = createFileRoute('/_authed/stores')({
  // The server's overview of every store (decision 110), asked while the screen's chunk loads; from a
  // provider without it (known from a kept answer, or when it answers 404), each store's figures as
  // before: kept ones first, then fetched (at most 3 at once, figures/year-query.ts); a store the sales
  // screen already fetched is not fetched again.
  loader: async ({ context }) => {
    const queryClient = await context.queryClient()
    const { year } = currentPeriod()
    const absent = () => {
      const kept = queryClient.getQueryData<object>(usageKeys.overview())
      return kept !== undefined && 'absent' in kept
    }
    const years = () => {
      for (const storeId of context.session.storeIds())
        void queryClient.prefetchQuery(usageQuery(storeId, year))
    }
    if (absent()) return years()
    // Nothing kept (a first visit): the call starts now, beside the chunk that holds its query, not after
    // it (on 3G a round trip of 400 ms less before the rows; decision 239).
    const early =
      queryClient.getQueryData(usageKeys.overview()) === undefined
        ? requestJson<StoresOverviewAnswer>('/api/v0/stores/overview')
        : undefined
    early?.catch(() => undefined)
    void import('../../features/stores/overview-live.ts')
      .then(({ overviewQuery, overviewFrom }) =>
        queryClient.prefetchQuery(
          early ? { ...overviewQuery, queryFn: () => overviewFrom(early) } : overviewQuery,
        ),
      )
      .then(() => absent() && years())
  },
  component: StoresOverview,
})
