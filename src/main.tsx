// Starts the app: the query client (restored from the device), the router, and the session checks of
// SPEC.md 4 and DECISIONS.md.
import { onlineManager } from '@tanstack/react-query'
import { PersistQueryClientProvider } from '@tanstack/react-query-persist-client'
import { createRouter, RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { onSessionEnded } from './lib/api.ts'
import { persistOptions, queryClient } from './lib/query-client.ts'
import { clearDevice, isLoggedIn, refreshSession, watchForSignOutElsewhere } from './lib/session.ts'
import { routeTree } from './routeTree.gen.ts'
import './styles.css'

const router = createRouter({ routeTree, context: { queryClient }, defaultPreload: 'intent' })

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}

/** The sign-in is gone (here, or in another tab): forget it on this device and show the login. */
function signedOut() {
  void clearDevice().then(() => router.navigate({ to: '/login', replace: true }))
}

// The query client assumes it starts online; an app opened offline (from the service worker) must
// know, so that going online counts as reconnecting and fetches what waited.
onlineManager.setOnline(navigator.onLine)
onSessionEnded(signedOut)
watchForSignOutElsewhere(signedOut)
if (isLoggedIn()) void refreshSession()

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')
createRoot(root).render(
  <StrictMode>
    {/* Figures kept on the device are restored before any query fetches. */}
    <PersistQueryClientProvider client={queryClient} persistOptions={persistOptions}>
      <RouterProvider router={router} />
    </PersistQueryClientProvider>
  </StrictMode>,
)
