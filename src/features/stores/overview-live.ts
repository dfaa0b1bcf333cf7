// The server's overview of every store (GET /api/v0/stores/overview, decisions 97–99 and 110) as a
// query kept on the device like the years' figures (the persisted cache, wiped at logout), and its live
// loop: one held call for the whole overview, a configuration of the live follower (src/live/follower.ts:
// one tab of the browser asks under a Web Lock and shares what it learns; a hidden tab pauses it,
// offline asks nothing, a logout ends it). A provider without the call (404) is remembered as `absent`: the overview then
// fetches every store's year, as before.
import { type QueryClient, queryOptions, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import type { StoresOverviewAnswer, StoresOverviewReply } from '../../../contract/api.ts'
import { withChange } from '../../../domain/overview-clock.ts'
import { usageKeys, usageRefetchMs } from '../../figures/year-query.ts'
import { HttpError, requestJson } from '../../lib/api.ts'
import { isFollowed } from '../../live/followed.ts'
import { type Following, follow } from '../../live/follower.ts'
import { liveWait } from '../../live/transport.ts'

/** What is kept: the server's overview, or that the server has no such call. */
export type Overview = StoresOverviewAnswer | { absent: true }

/** Under the usage keys: kept on the device, forgotten with a store's figures, wiped at logout. */
export const overviewKey = usageKeys.overview()
export const overviewPath = '/api/v0/stores/overview'

/** The overview from its call's answer: a 404 says the server has no such call. */
export async function overviewFrom(answer: Promise<StoresOverviewAnswer>): Promise<Overview> {
  try {
    return await answer
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) return { absent: true }
    throw error
  }
}

export const overviewQuery = queryOptions<Overview, Error, Overview, typeof overviewKey>({
  queryKey: overviewKey,
  queryFn: ({ signal }) => overviewFrom(requestJson<StoresOverviewAnswer>(overviewPath, { signal })),
  // As the years: fetched again every 5 minutes while shown, unless the live loop follows it.
  refetchInterval: (query) => (isFollowed(query) ? false : usageRefetchMs),
  staleTime: (query) => (isFollowed(query) ? Number.POSITIVE_INFINITY : 60_000),
  refetchOnReconnect: (query) => !isFollowed(query) && 'always',
})

/** The held overview call: only what moved after the overview this tab keeps, its rows moved by the clock here. */
const following = (client: QueryClient): Following<StoresOverviewReply> => ({
  key: overviewKey,
  lock: 'live-figures overview',
  ask() {
    const kept = client.getQueryData<Overview>(overviewKey)
    if (!kept || 'absent' in kept) return null
    return {
      path: `${overviewPath}?after=${kept.rev}&wait=${liveWait}&stores=changed&clock=1`,
      take(answer) {
        const shown = client.getQueryData<Overview>(overviewKey)
        if (!shown || 'absent' in shown) return { changed: false, more: false }
        // Only the stores that changed (decision 151), on the overview of the event before: taken into
        // it, or, when this tab keeps another, asked again (answered with every store).
        if (answer && 'after' in answer && answer.after !== shown.rev)
          // The same figures already taken in (shared by another tab that asked too): nothing to do.
          return { changed: false, more: answer.rev === shown.rev }
        // Unchanged (or a comment): the same figures, now said to be as of this answer.
        client.setQueryData<Overview>(
          overviewKey,
          !answer || 'unchanged' in answer
            ? shown
            : 'after' in answer
              ? {
                  at: answer.at,
                  rev: answer.rev,
                  stores: shown.stores.map((store) => {
                    const change = answer.stores.find(({ id }) => id === store.id)
                    return change ? withChange(store, change) : store
                  }),
                }
              : answer,
        )
        return { changed: true, more: true }
      },
    }
  },
})

/** Follows the overview while the screen shows it, once it came from a server with the call (`ready`). */
export function useLiveOverview(ready: boolean) {
  const client = useQueryClient()
  useEffect(() => (ready ? follow(client, following(client)) : undefined), [client, ready])
}
