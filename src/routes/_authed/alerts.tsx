import { createFileRoute } from '@tanstack/react-router'
import { AlertsPage } from '../../features/alerts/alerts-page.tsx'
import { useStoreStore } from '../../lib/session-state.ts'

// The alerts screen: `/alerts`. Its own route chunk (build/chunks.ts), reached from the header's menu;
// owner and staff alike, each for themselves.
export const Route = createFileRoute('/_authed/alerts')({
  component: AlertsRoute,
})

function AlertsRoute() {
  const stores = useStoreStore((state) => state.stores)
  return <AlertsPage stores={stores} />
}
