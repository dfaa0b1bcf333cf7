// A store's machines in one UTC month, as a query (docs/product.md §14): its call and its options. The
// key is a usage key (lib/usage-keys.ts), so the last-known machines are kept on the device with the
// figures and show offline; the section asks again every 60 s while it is visible and after each
// change of the store-year (decision 174).
import { queryOptions } from '@tanstack/react-query'
import type { MachinesAnswer } from '../../../../contract/machines.ts'
import { requestJson } from '../../../lib/api.ts'
import { usageKeys } from '../../../lib/usage-keys.ts'

/** How often a visible section asks again: machine states change by heartbeat, not by sale. */
export const machinesRefetchMs = 60_000

/** The store's machines call; one machine's own call is below it (`/{machine}`). */
export const machinesPath = (storeId: number) => `/api/v0/store/${storeId}/machines`

export const machinesQuery = (storeId: number, year: number, month: number) =>
  queryOptions({
    queryKey: usageKeys.machines(storeId, year, month),
    queryFn: ({ signal }) =>
      requestJson<MachinesAnswer>(`${machinesPath(storeId)}?year=${year}&month=${month}`, { signal }),
    // Every 60 s while the screen is visible (a hidden tab is not asked for: the library's default).
    refetchInterval: machinesRefetchMs,
    // Always stale: no live change follows a machine's state (it comes by heartbeat), so a kept answer,
    // restored from the device at a reload however fresh, is shown and asked again at once.
    staleTime: 0,
  })
