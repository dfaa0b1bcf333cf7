// The server's overview of every store (GET /api/v0/stores/overview, decisions 97–99 and 110) as a
// query kept on the device like the years' figures (the persisted cache, wiped at logout), and its live
// loop: one held call for the whole overview, run by src/figures/live.ts's machinery (one tab of the
// browser asks under a Web Lock and shares what it learns; a hidden tab pauses it, offline asks nothing,
// a logout ends it). A provider without the call (404) is remembered as `absent`: the overview then
// fetches every store's year, as before.
import { hashKey, type Query, type QueryClient, queryOptions, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import type { StoresOverviewAnswer, StoresOverviewReply } from '../../../contract/api.ts'
import { askHeld, followWith, liveWait, share, stopAfter } from '../../figures/live.ts'
import { liveFailing, usageKeys, usageRefetchMs } from '../../figures/year-query.ts'
import { HttpError, requestJson } from '../../lib/api.ts'
import { isSessionCurrent, sessionGeneration } from '../../lib/tokens.ts'

/** What is kept: the server's overview, or that the server has no such call. */
export type Overview = StoresOverviewAnswer | { absent: true }

/** Under the usage keys: kept on the device, forgotten with a store's figures, wiped at logout. */
export const overviewKey = usageKeys.overview()
export const overviewPath = '/api/v0/stores/overview'

const followed = (query: Query<Overview, Error, Overview, typeof overviewKey>) =>
  typeof (query.state.data as StoresOverviewAnswer | undefined)?.rev === 'number' &&
  !liveFailing.has(query.queryHash)

export const overviewQuery = queryOptions<Overview, Error, Overview, typeof overviewKey>({
  queryKey: overviewKey,
  queryFn: async ({ signal }) => {
    try {
      return await requestJson<StoresOverviewAnswer>(overviewPath, { signal })
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) return { absent: true }
      throw error
    }
  },
  // As the years: fetched again every 5 minutes while shown, unless the live loop follows it.
  refetchInterval: (query) => (followed(query) ? false : usageRefetchMs),
  staleTime: (query) => (followed(query) ? Number.POSITIVE_INFINITY : 60_000),
  refetchOnReconnect: (query) => !followed(query) && 'always',
})

/** The held overview call, one after another, until `signal` or the session ends. */
async function poll(client: QueryClient, signal: AbortSignal) {
  const startedIn = sessionGeneration()
  for (let failures = 0; !signal.aborted && isSessionCurrent(startedIn); ) {
    const kept = client.getQueryData<Overview>(overviewKey)
    if (!kept || 'absent' in kept) return
    try {
      await askHeld<StoresOverviewReply>(
        `${overviewPath}?after=${kept.rev}&wait=${liveWait}&stores=changed`,
        signal,
        (answer) => {
          if (signal.aborted || !isSessionCurrent(startedIn)) return false
          failures = 0
          liveFailing.delete(hashKey(overviewKey))
          const shown = client.getQueryData<Overview>(overviewKey)
          if (!shown || 'absent' in shown) return false
          // Only the stores that changed (decision 151), on the overview of the event before: taken into
          // it, or, when this tab keeps another, asked again (answered with every store).
          if (answer && 'after' in answer && answer.after !== shown.rev)
            // The same figures already taken in (shared by another tab that asked too): nothing to do.
            return answer.rev === shown.rev ? undefined : false
          // Unchanged (or a comment): the same figures, now said to be as of this answer.
          client.setQueryData<Overview>(
            overviewKey,
            !answer || 'unchanged' in answer
              ? shown
              : 'after' in answer
                ? {
                    at: answer.at,
                    rev: answer.rev,
                    stores: shown.stores.map(
                      (store) => answer.stores.find(({ id }) => id === store.id) ?? store,
                    ),
                  }
                : answer,
          )
          share(client, overviewKey)
        },
      )
    } catch (error) {
      if (await stopAfter(client, overviewKey, error, failures++, signal, startedIn)) return
    }
  }
}

/** Follows the overview while the screen shows it, once it came from a server with the call (`ready`). */
export function useLiveOverview(ready: boolean) {
  const client = useQueryClient()
  useEffect(
    () => (ready ? followWith(client, 'live-figures overview', (signal) => poll(client, signal)) : undefined),
    [client, ready],
  )
}
