// Starts the app: the router and the session checks of SPEC.md 4 and DECISIONS.md. The query client
// comes with the signed-in screens (src/routes/_authed.tsx).
import { createRouter, RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { onSessionEnded } from './lib/api.ts'
import { clearDevice, isLoggedIn, watchForSignOutElsewhere } from './lib/session.ts'
import { adoptSignIn } from './lib/tokens.ts'
import { routeTree } from './routeTree.gen.ts'
import './styles.css'

const router = createRouter({ routeTree, defaultPreload: 'intent' })

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}

/** The sign-in is gone (here, or in another tab): forget it on this device and show the login. */
function signedOut() {
  void clearDevice().then(() => router.navigate({ to: '/login', replace: true }))
}

adoptSignIn()
onSessionEnded(signedOut)
watchForSignOutElsewhere(signedOut)
if (isLoggedIn()) void import('./lib/session-check.ts').then(({ refreshSession }) => refreshSession())

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')
createRoot(root).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
)
