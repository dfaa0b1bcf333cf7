import { createFileRoute, type SearchSchemaInput } from '@tanstack/react-router'
import { TeamPage } from '../../features/team/team-page.tsx'
import { membersQuery, teamStoreOf } from '../../features/team/team-query.ts'
import { useStoreStore } from '../../lib/session-state.ts'

// The owner's team screen: `/team?store=2` (docs/product.md §15). Its own route chunk (build/chunks.ts),
// reached from the header's menu by owners. The store is the address's when the user owns it (a store
// they do not own is told only its owner runs its team; the server refuses its calls), else the
// remembered one when owned, else the first they own (teamStoreOf).

type TeamSearch = { store?: number }

const validateSearch = (search: TeamSearch & SearchSchemaInput): TeamSearch => {
  const store = Number(search.store)
  return Number.isSafeInteger(store) && store > 0 ? { store } : {}
}

export const Route = createFileRoute('/_authed/team')({
  validateSearch,
  loaderDeps: ({ search }) => ({ store: search.store }),
  // The store's members, asked while the screen's code loads; the screen reads the same query.
  loader: async ({ context, deps }) => {
    const store = teamStoreOf(deps.store, useStoreStore.getState())
    if (store) void (await context.queryClient()).prefetchQuery(membersQuery(store.id))
  },
  component: TeamRoute,
})

function TeamRoute() {
  const { store: named } = Route.useSearch()
  const navigate = Route.useNavigate()
  const stores = useStoreStore((state) => state.stores)
  const store = useStoreStore((state) => teamStoreOf(named, state))
  return (
    <TeamPage
      store={store}
      ownedStores={stores.filter((option) => option.role === 'owner')}
      onStoreChange={(storeId) => void navigate({ search: { store: storeId } })}
    />
  )
}
