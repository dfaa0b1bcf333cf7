// The sales screen's year, followed live (docs/product.md §2.3, decisions 83-88): one configuration of
// the live follower (src/live/follower.ts). It asks for the changes after the revision it keeps, merges
// each answer into the kept buckets (changes.ts), and fetches the year again when the server says the
// changes are not kept (a reset).
import { hashKey, type QueryClient, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { type ChangesAnswer, mergeChanges } from '../../domain/changes.ts'
import { follow as followLive } from '../live/follower.ts'
import { liveWait } from '../live/transport.ts'
import { type Usage, usageKeys, usageQuery } from './year-query.ts'

/** The address of the changes call. */
export const changesPath = (storeId: number, year: number, after: number) =>
  `/api/v0/store/${storeId}/usage/changes?year=${year}&after=${after}&wait=${liveWait}`

/**
 * Follows a store-year's changes while this tab shows it, until the returned function stops it (one
 * tab of the browser asks; visible and online only).
 */
export function follow(client: QueryClient, storeId: number, year: number) {
  const key = usageKeys.year(storeId, year)
  return followLive<ChangesAnswer>(client, {
    key,
    lock: `live-figures ${storeId} ${year}`,
    ask() {
      let after = client.getQueryData<Usage>(key)?.rev
      if (after === undefined) return null
      return {
        path: changesPath(storeId, year, after),
        async take(answer) {
          const kept = client.getQueryData<Usage>(key)
          // A comment: nothing new, the figures are current.
          const merged =
            kept && answer ? mergeChanges(kept.buckets, kept.rev ?? -1, after as number, answer) : 'same'
          // Another question than the kept revision's: asked again after it.
          if (merged === 'stale' || !kept) return { changed: false, more: false }
          if (merged === 'refetch') {
            await client.fetchQuery({ ...usageQuery(storeId, year), staleTime: 0 })
            return { changed: true, more: false }
          }
          client.setQueryData<Usage>(
            key,
            merged === 'same' ? kept : { buckets: merged, etag: null, rev: (answer as ChangesAnswer).rev },
          )
          after = answer?.rev ?? after
          return { changed: true, more: true }
        },
      }
    },
  })
}

/** Follows a store-year while the calling screen shows it, once its figures say their revision (`ready`). */
export function useLive(storeId: number, year: number, ready: boolean) {
  const client = useQueryClient()
  useEffect(() => (ready ? follow(client, storeId, year) : undefined), [client, storeId, year, ready])
}

/**
 * Calls `listener` each time a store-year's kept figures change after they were first there: a live
 * change merged (here or in the tab that asks), a reset fetched again, a refetch with new records. The
 * one hook for what follows the year without being its figures (the machines, decision 174).
 */
export function onYearChange(client: QueryClient, storeId: number, year: number, listener: () => void) {
  const hash = hashKey(usageKeys.year(storeId, year))
  let seen = client.getQueryData(usageKeys.year(storeId, year))
  return client.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.query.queryHash !== hash) return
    const data = event.query.state.data
    if (data === seen) return
    const had = seen !== undefined
    seen = data
    if (had && data !== undefined) listener()
  })
}
