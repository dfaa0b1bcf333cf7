// A store's sales of one year, as a query: fetched once, kept on the device, read by every screen
// that shows figures (the sales screen and the stores overview), so none fetches it twice.
import { queryOptions } from '@tanstack/react-query'
import { HttpError, StaleSessionError } from '../lib/api.ts'
import { isSessionCurrent, sessionGeneration } from '../lib/tokens.ts'
import { type Usage, usageKeys } from '../lib/usage-keys.ts'
import { isFollowed } from '../live/followed.ts'
import { bucketResponse } from '../workers/bucket-client.ts'
import { currentPeriod } from './clock.ts'
import { requestYear, takeUsageEarly } from './year-request.ts'

// The cache's names for a store-year's figures, which the query client keeps on the device (lib/).
export { type Usage, usageKeys }

/**
 * The query key of the buckets of the leading sums of a version 2 answer still streaming (decision
 * 116): the totals and charts are shown from them until the records are complete (then the year
 * query's data replaces them) and while the rest failed. Not a usage key, so never kept on the device
 * nor taken for complete figures; a session's end clears them with the rest of the cache.
 */
export const leadingKey = (storeId: number, year: number) => ['usage-leading', storeId, year] as const

const revOf = (response: Response) => {
  const rev = Number(response.headers.get('usage-revision') ?? Number.NaN)
  return Number.isSafeInteger(rev) ? rev : undefined
}

/** How often a screen that stays open asks again for the current year's records. */
export const usageRefetchMs = 5 * 60_000

/** At most this many usage answers are fetched at once (the stores overview asks for every store). */
export const usageFetchesAtOnce = 3

/**
 * A limiter: the function it returns runs a task when fewer than `atOnce` of its tasks run, in the
 * order asked. A finishing task hands its place straight to the next waiting one, so a task asked for
 * in between can never slip in ahead of it and make one too many.
 */
export function inTurns(atOnce: number) {
  let running = 0
  const waiting: (() => void)[] = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < atOnce) running += 1
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running -= 1
    }
  }
}

const inTurn = inTurns(usageFetchesAtOnce)

/**
 * A store's sales of one year, as buckets. Our server answers it in the compact encoding this asks for
 * (docs/architecture.md, "The compact usage encoding"), any other server in the contract's JSON; the
 * answer's body streams straight to the bucketing worker with its Content-Type, which says which: this
 * thread never parses the records. What is cached (and kept for offline use) is the buckets with the
 * answer's ETag, never the records: the browser does not store usage answers (`no-store`), so the app
 * revalidates itself, and a 304 keeps the buckets as they are, with no bucketing. Figures fetched for a
 * session that has ended since are dropped, never cached.
 */
export const usageQuery = (storeId: number, year: number, followed = true) =>
  queryOptions<Usage, Error, Usage, ReturnType<typeof usageKeys.year>>({
    queryKey: usageKeys.year(storeId, year),
    // The current year's records grow: a screen left open asks again every 5 minutes while it is
    // shown (usually a 304), so that its figures and quiet warnings keep up; unless the live loop
    // follows the year (live.ts), which fetches it again only when its changes cannot be merged.
    refetchInterval: (query) =>
      year === currentPeriod().year && !(followed && isFollowed(query)) ? usageRefetchMs : false,
    staleTime: (query) => (followed && isFollowed(query) ? Number.POSITIVE_INFINITY : 60_000),
    refetchOnReconnect: (query) => !(followed && isFollowed(query)) && 'always',
    queryFn: async ({ signal, client, queryKey }): Promise<Usage> => {
      const startedIn = sessionGeneration()
      const kept = client.getQueryData<Usage>(queryKey)
      // The answer a sign-in asked for early (year-request.ts), when nothing is kept to revalidate; if
      // that one failed, the query asks again itself.
      const early = kept ? undefined : takeUsageEarly(storeId, year)
      const response =
        (early && (await early.catch(() => undefined))) ??
        (await inTurn(() => requestYear(storeId, year, { signal, ifNoneMatch: kept?.etag ?? undefined })))
      if (response.status === 304) {
        if (!kept) throw new HttpError(304, '서버가 저장되지 않은 매출을 가리켰습니다.')
        if (!isSessionCurrent(startedIn)) throw new StaleSessionError()
        // The same records, maybe at a later revision (a sale put and removed again).
        const rev = revOf(response) ?? kept.rev
        return rev === kept.rev ? kept : { ...kept, rev }
      }
      const etag = response.headers.get('etag')
      const key = leadingKey(storeId, year)
      const buckets = await bucketResponse(
        response,
        year,
        (lead) => isSessionCurrent(startedIn) && client.setQueryData(key, lead),
      )
      if (!isSessionCurrent(startedIn)) throw new StaleSessionError()
      // Replaced by the data this returns.
      void client.resetQueries({ queryKey: key })
      return { buckets, etag, rev: revOf(response) }
    },
  })
