// The query cache, and what of it is kept on the device for offline use: the sales buckets of each
// (store, year) the user looked at, never raw records, never tokens.
// Only the signed-in screens load this module (the login screen needs none of it).
import { createAsyncStoragePersister } from '@tanstack/query-async-storage-persister'
import { onlineManager, QueryClient } from '@tanstack/react-query'
import {
  type PersistedClient,
  persistQueryClient,
  removeOldestQuery,
} from '@tanstack/react-query-persist-client'
import { backoff } from '../../domain/backoff.ts'
import type { Buckets } from '../../domain/buckets.ts'
import { dayMs } from '../../domain/calendar.ts'
import { type PackedBuckets, packBuckets, unpackBuckets } from '../../domain/kept-buckets.ts'
import { EmptyAnswerError, HttpError, OfflineError, SessionEndedError, StaleSessionError } from './api.ts'
import { signInStorage } from './sign-in-storage.ts'
import { type Usage, usageKeys } from './usage-keys.ts'

/** How long figures stay available offline after they were last fetched. */
const keptFor = 30 * dayMs

/**
 * No answer at all is retried until there is one (the device may say it is online while it is not);
 * a refused request (4xx), an ended session, or a server that keeps answering nothing will not get
 * better by asking again.
 */
function worthRetrying(failures: number, error: Error) {
  if (error instanceof StaleSessionError) return false
  if (error instanceof OfflineError) return true
  return (
    failures < 2 &&
    !(error instanceof SessionEndedError) &&
    !(error instanceof EmptyAnswerError) &&
    !(error instanceof HttpError && error.status < 500)
  )
}
const retryDelay = (failures: number) => backoff(failures, { firstMs: 1000, maxMs: 30_000 })

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Today's takings change through the day: a minute-old answer is refetched when looked at again.
      staleTime: 60_000,
      // Never dropped from memory while the app runs (a handful of stores and years at most), so the
      // persisted copy keeps every one. Not `keptFor`: a timer over 2^31 ms (24.8 days) fires at once,
      // which dropped every figure but the last viewed.
      gcTime: Number.POSITIVE_INFINITY,
      retry: worthRetrying,
      retryDelay,
      refetchOnWindowFocus: true,
      // Back online, figures shown from the device are fetched again even when not yet stale.
      refetchOnReconnect: 'always',
    },
  },
})

/**
 * The kept figures with the buckets of each (store, year) mapped: packed on the way to storage,
 * unpacked on the way back (domain/kept-buckets.ts). A copy that does not unpack (damaged) is dropped
 * and the others restored, rather than the whole restore failing.
 */
const mapBuckets = (client: PersistedClient, map: (buckets: never) => Buckets | PackedBuckets) => {
  // Not a kept copy of ours at all (another shape, an old version): left as it is for the restore to drop.
  if (!Array.isArray(client?.clientState?.queries)) return client
  return {
    ...client,
    clientState: {
      ...client.clientState,
      queries: client.clientState.queries.flatMap((query) => {
        try {
          const usage = query.state.data as Usage
          // Kept figures without buckets (the overview of every store, a store's machines) are kept as they are.
          if (typeof usage === 'object' && usage !== null && !('buckets' in usage)) return [query]
          return [
            { ...query, state: { ...query.state, data: { ...usage, buckets: map(usage.buckets as never) } } },
          ]
        } catch {
          return []
        }
      }),
    },
  }
}

/**
 * Local storage as the tab's own sign-in may use it (sign-in-storage.ts). Clearing the cache at a
 * logout makes the persister save what is left of it, and such a save can land after the wipe removed
 * the kept copy (it runs a microtask later, or up to a second later, throttled): written, it would put
 * the previous user's figures back. The tokens are removed first of all at every logout, so every such
 * write is dropped; and a tab whose sign-in was replaced by another user's in another tab never writes
 * its figures over the new user's.
 */
const figuresStorage = typeof window === 'undefined' ? undefined : signInStorage

export const persister = createAsyncStoragePersister({
  storage: figuresStorage,
  key: 'laundry-sales-cache',
  serialize: (client) => JSON.stringify(mapBuckets(client, packBuckets)),
  deserialize: (text) => mapBuckets(JSON.parse(text), unpackBuckets),
  // A full storage drops the oldest figures rather than failing to save the newest.
  retry: removeOldestQuery,
})

// The query client assumes it starts online; an app opened offline (from the service worker) must
// know, so that going online counts as reconnecting and fetches what waited.
if (typeof navigator !== 'undefined') onlineManager.setOnline(navigator.onLine)

/**
 * Restores the figures kept on the device, then keeps saving them. Route loaders await this before
 * any query may fetch, so restoring and fetching never race. It never fails: a copy that cannot be
 * restored is dropped (by the library) and the app starts without kept figures, rather than a
 * signed-in screen, or the wipe of a logout, failing with it.
 */
export const restored: Promise<void> = persistQueryClient({
  queryClient,
  persister,
  maxAge: keptFor,
  // The second part numbers the shape of the kept data (3: { buckets, etag } with the hourly arrays
  // packed, domain/kept-buckets.ts); a copy of another shape is dropped.
  buster: `${__APP_VERSION__}+3`,
  dehydrateOptions: {
    shouldDehydrateQuery: (query) => usageKeys.is(query.queryKey) && query.state.status === 'success',
  },
})[1].catch((error: unknown) => console.error('the figures kept on this device could not be restored', error))

/**
 * Forgets the figures of every store but these (a profile that no longer lists a store: the owner's
 * access to it was revoked): from the cache, and with it from the copy kept on the device, which the
 * persister saves again without them. Of a store not among `money` (the owner hides its won amounts,
 * docs/product.md §15) the year's figures are forgotten, and its machines asked again without them.
 */
export async function forgetStoresBut(storeIds: readonly number[], money: readonly number[] = storeIds) {
  await restored
  const hidden = ({ queryKey }: { queryKey: readonly unknown[] }) =>
    !money.includes(queryKey[1] as number) && typeof queryKey[1] === 'number'
  queryClient.removeQueries({
    queryKey: usageKeys.all,
    predicate: (query) =>
      !storeIds.includes(query.queryKey[1] as number) ||
      (hidden(query) && (query.queryKey[2] !== 'machines' || !query.isActive())),
  })
  await queryClient.invalidateQueries({ queryKey: usageKeys.all, predicate: hidden })
}
