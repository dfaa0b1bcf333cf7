// Starts the app: the router, with what its guards and loaders read (the session, the query client,
// loaded with the signed-in screens only), and the session's life in this tab.
import { createRouter, RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { startSessionLife } from './features/auth/session.ts'
import { sessionView } from './lib/session-state.ts'
import { routeTree } from './routeTree.gen.ts'
import { removeShell } from './shell/remove-shell.ts'
import './styles.css'

const router = createRouter({
  routeTree,
  defaultPreload: 'intent',
  context: {
    session: sessionView,
    // Routes ask for it before any query may fetch, so restoring the kept figures and fetching never race.
    queryClient: async () => {
      const { queryClient, restored } = await import('./lib/query-client.ts')
      await restored
      return queryClient
    },
  },
})

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}

startSessionLife(() => void router.navigate({ to: '/', replace: true }))

// What src/shell/paint-first.ts painted before this code ran gives way to the first screen rendered:
// the login form (which takes over what was typed, shell/login-shell.ts) or the sales screen with the
// same figures from the device (or another screen altogether).
const stopWatching = router.subscribe('onRendered', () => {
  removeShell()
  stopWatching()
})

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')
createRoot(root).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
)
