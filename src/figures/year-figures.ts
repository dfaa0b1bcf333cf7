// A store-year's figures and their status, one rule for every screen that shows them (docs/product.md
// §4.4, decision 25): the sales screen and the stores overview. The status is what the figures are
// worth now, so that kept figures never pass for current ones, and a store-year never shows another's.
// The overview, which shows every store at once, reads the same from the cache (cached-year-figures.ts).
import { skipToken, useQuery } from '@tanstack/react-query'
import type { Buckets } from '../../domain/buckets.ts'
import { OfflineError } from '../lib/api.ts'
import { useOnline } from '../lib/online.ts'
import { useLive } from './live.ts'
import { leadingKey, type Usage, usageQuery } from './year-query.ts'

/**
 * - `loading`: nothing of this store-year yet, and nothing known to be wrong: it is on its way;
 * - `failed`: nothing of it, and its fetch was answered with an error;
 * - `refreshFailed`: its figures are kept from an earlier fetch, and its latest fetch was answered with
 *   an error (a server error, a refusal): they may be out of date, and the screen says so;
 * - `offline`: no answer: the device says it is offline, or this store-year's fetch got no answer (it
 *   keeps retrying); its figures, if any, are the kept ones;
 * - `current`: its figures are the server's latest (no failed or unanswered fetch since).
 */
export type FiguresStatus = 'loading' | 'failed' | 'refreshFailed' | 'offline' | 'current'

export interface YearFigures {
  /** The store-year's buckets, fetched or kept; only ever this store's and this year's. */
  buckets: Buckets | undefined
  /** Last year's buckets, when fetched or kept (the comparisons, early January's history). */
  previous: Buckets | undefined
  status: FiguresStatus
  /** When the buckets shown were fetched. */
  fetchedAt: number | undefined
}

/** What the year query says of a store-year, as its hook result and its cache entry both tell it. */
export interface QueryView {
  data: Usage | undefined
  isError: boolean
  failureReason: unknown
  dataUpdatedAt: number | undefined
}

/** The status of figures from a query (the year's, or the server's overview of every store), by one rule. */
export const figuresStatus = (
  query: Pick<QueryView, 'isError' | 'failureReason'>,
  has: boolean,
  online: boolean,
): FiguresStatus =>
  !online || query.failureReason instanceof OfflineError
    ? 'offline'
    : query.isError
      ? has
        ? 'refreshFailed'
        : 'failed'
      : has
        ? 'current'
        : 'loading'

/** The one rule: a store-year's figures and their status, from its query and last year's figures. */
export function yearFigures(query: QueryView, previous: Usage | undefined, online: boolean): YearFigures {
  const buckets = query.data?.buckets
  return {
    buckets,
    previous: previous?.buckets,
    status: figuresStatus(query, buckets !== undefined, online),
    fetchedAt: buckets ? query.dataUpdatedAt : undefined,
  }
}

/**
 * A store-year's figures, fetched (and refetched) through the year query, followed live once loaded
 * from a server with the changes call (live.ts), and their status; last
 * year's are asked for once this year's are there (never holding up the first figures), through the
 * same query and cache, so they are kept for offline use too. `error`: the latest fetch's failure;
 * `retry` fetches again. `leading`: while there are no buckets, those of the leading sums of a version
 * 2 answer being fetched (or whose records then failed): totals and charts only (decision 116).
 */
export function useYearFigures(storeId: number, year: number) {
  const query = useQuery(usageQuery(storeId, year))
  // Last year's figures are not followed live: fetched again when stale, as before.
  const previous = useQuery({ ...usageQuery(storeId, year - 1, false), enabled: query.data !== undefined })
  useLive(storeId, year, query.data?.rev !== undefined)
  const online = useOnline()
  const lead = useQuery<Buckets>({ queryKey: leadingKey(storeId, year), queryFn: skipToken }).data
  return {
    ...yearFigures(query, previous.data, online),
    leading: query.data ? undefined : lead,
    error: query.error,
    retry: () => void query.refetch(),
  }
}
