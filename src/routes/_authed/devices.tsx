import { createFileRoute, type SearchSchemaInput } from '@tanstack/react-router'
import { DevicesPage } from '../../features/devices/devices-page.tsx'
import { useStoreStore } from '../../lib/session-state.ts'

// The owner's devices screen: `/devices?store=2`. Its own route chunk (vite.config.ts), reached from the
// header's menu. The store is the address's when the user owns it, else the remembered one when owned,
// else the first they own; a user who owns none (staff) is told so, and the server refuses its calls.

type DevicesSearch = { store?: number }

const validateSearch = (search: DevicesSearch & SearchSchemaInput): DevicesSearch => {
  const store = Number(search.store)
  return Number.isSafeInteger(store) && store > 0 ? { store } : {}
}

export const Route = createFileRoute('/_authed/devices')({
  validateSearch,
  component: DevicesRoute,
})

function DevicesRoute() {
  const { store: named } = Route.useSearch()
  const navigate = Route.useNavigate()
  const stores = useStoreStore((state) => state.stores)
  const remembered = useStoreStore((state) => state.store)
  const owned = stores.filter((store) => store.role === 'owner')
  const store =
    owned.find((option) => option.id === named) ??
    owned.find((option) => option.id === remembered?.id) ??
    owned[0]
  return (
    <DevicesPage
      store={store}
      ownedStores={owned}
      onStoreChange={(storeId) => void navigate({ search: { store: storeId } })}
    />
  )
}
