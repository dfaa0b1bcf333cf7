import { createFileRoute, type SearchSchemaInput, useLocation } from '@tanstack/react-router'
import { SalesPage } from '../../features/sales/sales-page.tsx'
import { currentPeriod } from '../../figures/clock.ts'
import { type SalesSearch, salesSearch } from '../../figures/sales-search.ts'
import { usageQuery } from '../../figures/year-query.ts'

// The sales screen's address: `/?store=2&year=2026&month=11`, every part optional, so a reload or Back
// keeps what was shown. The period's default (this month, UTC) is applied here, once: a year and month
// that are not both valid are this month (figures/sales-search.ts, with which the first painter reads
// the address too).

/** What a link may give: any part, or none (the defaults apply). */
type SalesSearchInput = { store?: number; year?: number; month?: number } & SearchSchemaInput

const validateSearch = (search: SalesSearchInput): SalesSearch => salesSearch(search)

export const Route = createFileRoute('/_authed/')({
  validateSearch,
  // This month is not written into the address: `/` stays `/`, and a link to this month is short.
  search: {
    middlewares: [
      ({ search, next }) => {
        const { year, month, ...rest } = next(search)
        const today = currentPeriod()
        return year === today.year && month === today.month ? (rest as SalesSearch) : { ...rest, year, month }
      },
    ],
  },
  // The store is the address's when it is one of the user's, else the one the device remembers; the
  // address's becomes the remembered one (not for a preload, which only prepares a link's target).
  beforeLoad: ({ context: { session }, search, preload }) => {
    const named = search.store !== undefined && session.hasStore(search.store) ? search.store : undefined
    if (named !== undefined && !preload) session.selectStore(named)
    return { storeId: named ?? session.selectedStoreId() }
  },
  loaderDeps: ({ search }) => ({ store: search.store, year: search.year }),
  // The figures kept on the device first, then a fetch that runs while the screen's code loads; the
  // page reads the same query.
  loader: async ({ context, deps }) => {
    const queryClient = await context.queryClient()
    // Not of a store whose won amounts the owner hides from the user (docs/product.md §15): a 403.
    if (context.storeId !== undefined && context.session.seesMoney(context.storeId))
      void queryClient.prefetchQuery(usageQuery(context.storeId, deps.year))
  },
  component: SalesRoute,
})

function SalesRoute() {
  const { year, month } = Route.useSearch()
  // An address without a period (`/`) is this month whichever it is now: the screen, left open, moves
  // into the next month when it begins (09:00 in Korea on the 1st) instead of staying on the last one.
  // (A year without a month is no period either: the route takes both or neither.)
  const named = useLocation({ select: (location) => 'month' in location.search })
  const storeId = Route.useRouteContext({ select: (context) => context.storeId })
  const navigate = Route.useNavigate()
  if (storeId === undefined) return null
  return (
    <SalesPage
      storeId={storeId}
      period={named ? { year, month } : undefined}
      onPeriodChange={(next) => navigate({ search: (previous) => ({ ...previous, ...next }) })}
    />
  )
}
