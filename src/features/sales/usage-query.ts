import { queryOptions } from '@tanstack/react-query'
import { request } from '../../lib/api.ts'
import { bucketInWorker } from '../../workers/bucket-client.ts'

/**
 * A store's sales of one year, as buckets. The answer's bytes go straight to the bucketing worker:
 * this thread never parses the records. What is cached (and kept for offline use) is the buckets.
 */
export const usageQuery = (storeId: number, year: number) =>
  queryOptions({
    queryKey: ['usage', storeId, year] as const,
    queryFn: async ({ signal }) => {
      const response = await request(`/api/v0/store/${storeId}/usage?year=${year}`, { signal })
      return bucketInWorker(await response.arrayBuffer(), year)
    },
  })
