// A store's figures of one year as the query cache holds them and the device keeps them: their shape
// and their query keys. The query client (query-client.ts) keeps and forgets them by these keys; the
// year query that fetches them (figures/year-query.ts) names them with these keys too.
import type { Buckets } from '../../domain/buckets.ts'

/** What is cached and kept for offline use of one store and year: the buckets and the answer's ETag. */
export interface Usage {
  buckets: Buckets
  /** The ETag of the answer the buckets were made from; sent back in If-None-Match (null once changes are merged in). */
  etag: string | null
  /**
   * The store-year's revision the buckets are of (the answer's `Usage-Revision`); only a server with
   * the changes call says it, and then the live loop (figures/live.ts) follows the year from it.
   */
  rev?: number | undefined
}

/** The query keys of usage: the query, the filter of what is kept on the device, and tests name them here. */
export const usageKeys = {
  all: ['usage'] as const,
  store: (storeId: number) => [...usageKeys.all, storeId] as const,
  year: (storeId: number, year: number) => [...usageKeys.store(storeId), year] as const,
  /**
   * A store's machines in one UTC month (src/features/sales/machines/, docs/product.md §14): kept on the device
   * like the figures beside them, so the last-known machines show offline too.
   */
  machines: (storeId: number, year: number, month: number) =>
    [...usageKeys.store(storeId), 'machines', year, month] as const,
  /** The server's overview of every store (src/features/stores/overview-live.ts). */
  overview: () => [...usageKeys.all, 'overview'] as const,
  /** Whether a query key is a usage key. */
  is: (queryKey: readonly unknown[]) => queryKey[0] === usageKeys.all[0],
}
