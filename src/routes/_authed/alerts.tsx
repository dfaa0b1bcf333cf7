import { createFileRoute } from '@tanstack/react-router'
import { AlertsPage } from '../../features/alerts/alerts-page.tsx'
import { alertSettingsQuery, alertsListQuery } from '../../features/alerts/alerts-queries.ts'
import { useStoreStore } from '../../lib/session-state.ts'

// The alerts screen: `/alerts`. Its own route chunk (build/chunks.ts), reached from the header's menu;
// owner and staff alike, each for themselves, of every store of theirs.
export const Route = createFileRoute('/_authed/alerts')({
  // The settings and the alerts, asked while the screen's code loads; the screen reads the same queries.
  loader: async ({ context }) => {
    const queryClient = await context.queryClient()
    void queryClient.prefetchQuery(alertSettingsQuery)
    void queryClient.prefetchQuery(alertsListQuery)
  },
  component: AlertsRoute,
})

function AlertsRoute() {
  const stores = useStoreStore((state) => state.stores)
  return <AlertsPage stores={stores} />
}
