import { createFileRoute, type SearchSchemaInput } from '@tanstack/react-router'
import { DevicesPage } from '../../features/devices/devices-page.tsx'
import { devicesQuery, devicesStoreOf } from '../../features/devices/devices-query.ts'
import { useStoreStore } from '../../lib/session-state.ts'

// The owner's devices screen: `/devices?store=2`. Its own route chunk (build/chunks.ts), reached from the
// header's menu. The store is the address's when the user owns it, else the remembered one when owned,
// else the first they own (devicesStoreOf); a user who owns none (staff) is told so, and the server
// refuses its calls.

type DevicesSearch = { store?: number }

const validateSearch = (search: DevicesSearch & SearchSchemaInput): DevicesSearch => {
  const store = Number(search.store)
  return Number.isSafeInteger(store) && store > 0 ? { store } : {}
}

export const Route = createFileRoute('/_authed/devices')({
  validateSearch,
  loaderDeps: ({ search }) => ({ store: search.store }),
  // The store's devices, asked while the screen's code loads; the screen reads the same query.
  loader: async ({ context, deps }) => {
    const store = devicesStoreOf(deps.store, useStoreStore.getState())
    if (store) void (await context.queryClient()).prefetchQuery(devicesQuery(store.id))
  },
  component: DevicesRoute,
})

function DevicesRoute() {
  const { store: named } = Route.useSearch()
  const navigate = Route.useNavigate()
  const stores = useStoreStore((state) => state.stores)
  const store = useStoreStore((state) => devicesStoreOf(named, state))
  return (
    <DevicesPage
      store={store}
      ownedStores={stores.filter((option) => option.role === 'owner')}
      onStoreChange={(storeId) => void navigate({ search: { store: storeId } })}
    />
  )
}
