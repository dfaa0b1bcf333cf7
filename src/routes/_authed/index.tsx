import { createFileRoute } from '@tanstack/react-router'
import { currentPeriod, type Period } from '../../features/sales/period.ts'
import { SalesPage } from '../../features/sales/sales-page.tsx'
import { usageQuery } from '../../features/sales/usage-query.ts'
import { queryClient, restored } from '../../lib/query-client.ts'
import { useStoreStore } from '../../lib/session.ts'

/** The period lives in the address (`/?year=2026&month=11`), so a reload or Back keeps what was shown. */
function validateSearch(search: Record<string, unknown>): Partial<Period> {
  const year = Number(search.year)
  const month = Number(search.month)
  const valid =
    Number.isInteger(year) &&
    year >= 2000 &&
    year <= 2100 &&
    Number.isInteger(month) &&
    month >= 1 &&
    month <= 12
  return valid ? { year, month } : {}
}

export const Route = createFileRoute('/_authed/')({
  validateSearch,
  loaderDeps: ({ search }) => ({ year: search.year ?? currentPeriod().year }),
  // The figures kept on the device first, then a fetch that runs while the screen's code loads; the
  // page reads the same query.
  loader: async ({ deps }) => {
    await restored
    const store = useStoreStore.getState().store
    if (store) void queryClient.prefetchQuery(usageQuery(store.id, deps.year))
  },
  component: SalesRoute,
})

function SalesRoute() {
  const search = Route.useSearch()
  const navigate = Route.useNavigate()
  const today = currentPeriod()
  const period = { year: search.year ?? today.year, month: search.month ?? today.month }
  return <SalesPage period={period} onPeriodChange={(next) => navigate({ search: next })} />
}
