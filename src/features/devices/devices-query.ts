// The devices of a store, as a query: its key factory, its call, and the store the screen shows. The
// route prefetches it while the screen's code loads (routes/_authed/devices.tsx); the screen and its
// actions (add, rename, revoke) read and refresh the same query.
import { queryOptions } from '@tanstack/react-query'
import type { DevicesAnswer, Store } from '../../../contract/api.ts'
import { requestJson } from '../../lib/api.ts'

/** The query keys of the devices screen. */
export const devicesKeys = {
  all: ['devices'] as const,
  store: (storeId: number) => [...devicesKeys.all, storeId] as const,
}

/** The store's devices call; a device's own calls are below it (`/{id}`). */
export const devicesPath = (storeId: number) => `/api/v0/store/${storeId}/devices`

/** The store's devices with what each last said, asked again every 30 s (heartbeats come every minute). */
export const devicesQuery = (storeId: number) =>
  queryOptions({
    queryKey: devicesKeys.store(storeId),
    queryFn: ({ signal }) => requestJson<DevicesAnswer>(devicesPath(storeId), { signal }),
    refetchInterval: 30_000,
  })

/**
 * The store whose devices the screen shows: the address's when the user owns it, else the remembered
 * one when owned, else the first they own; none for a user who owns none (staff).
 */
export function devicesStoreOf(
  named: number | undefined,
  { stores, store: remembered }: { stores: Store[]; store: Store | null },
): Store | undefined {
  const owned = stores.filter((store) => store.role === 'owner')
  return (
    owned.find((option) => option.id === named) ??
    owned.find((option) => option.id === remembered?.id) ??
    owned[0]
  )
}
