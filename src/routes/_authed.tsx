import { QueryClientProvider } from '@tanstack/react-query'
import { createFileRoute, Link, Outlet, useMatch, useNavigate } from '@tanstack/react-router'
import { useEffect } from 'react'
import { LogoutButton } from '../features/auth/logout-button.tsx'
import { StoreSwitcher } from '../features/stores/store-switcher.tsx'
import { onStoreRefused } from '../lib/api.ts'
import { Footer } from './-footer.tsx'
import { requireSignedIn } from './-guard.ts'
import { HeaderMenu } from './-header-menu.tsx'
import { ProblemNotice } from './-problem-notice.tsx'

// The signed-in screens: their guard, their shared header and footer, and the query client they read.
export const Route = createFileRoute('/_authed')({
  beforeLoad: requireSignedIn,
  loader: async ({ context }) => ({ queryClient: await context.queryClient() }),
  component: SignedInLayout,
})

/**
 * Sends this browser's push subscription to the server again while the permission is granted, once a
 * signed-in screen shows (every start, and after each sign-in), for a user who chose alerts on this
 * browser (push-subscription.ts): browsers drop subscriptions silently, and the server forgets one when
 * its sign-in ends. Its code loads only then, apart from the screens.
 */
function useResendPushSubscription() {
  useEffect(() => {
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return
    import('../features/alerts/push-subscription.ts')
      .then((push) => push.resendSubscription())
      .catch(() => undefined)
  }, [])
}

/**
 * A call about a store refused (403) while a signed-in screen shows: the store may have been taken from
 * the user, and then the device forgets it and the screen returns to the store list with a notice
 * (docs/product.md §15). Its code loads only then.
 */
function useStoreRefusals() {
  const navigate = useNavigate()
  useEffect(
    () =>
      onStoreRefused((storeId) => {
        import('../features/auth/store-lost.ts')
          .then(({ checkStoreLost }) =>
            checkStoreLost(storeId, () => void navigate({ to: '/stores', replace: true })),
          )
          .catch(() => undefined)
      }),
    [navigate],
  )
}

function SignedInLayout() {
  const { queryClient } = Route.useLoaderData()
  useResendPushSubscription()
  useStoreRefusals()
  // The header names the store whose figures the screen shows, from the same route match, so the two
  // change in one render (the remembered store changes as a navigation starts, before the figures do).
  const shownStoreId = useMatch({
    from: '/_authed/',
    shouldThrow: false,
    select: (match) => match.context.storeId,
  })
  return (
    <div className="app">
      <header className="app-header">
        <StoreSwitcher shownStoreId={shownStoreId} />
        <picture className="app-logo">
          {/* On a phone the mark alone, so the store name keeps its room. */}
          <source media="(max-width: 479px)" srcSet="/favicon.svg" width={32} height={32} />
          <img src="/logo.svg" alt="Logo" lang="en" width={148} height={32} />
        </picture>
        <div className="header-actions">
          {/* On a phone every store at a glance is one tap away (elsewhere it heads the store list). */}
          <Link to="/stores" className="header-stores" aria-label="전체 매장" title="전체 매장">
            <svg viewBox="0 0 16 16" width="18" height="18" aria-hidden="true">
              <path d="M1 1h6v6H1zM9 1h6v6H9zM1 9h6v6H1zM9 9h6v6H9z" fill="currentColor" />
            </svg>
          </Link>
          <HeaderMenu shownStoreId={shownStoreId} />
          <LogoutButton />
        </div>
      </header>
      <ProblemNotice />
      <QueryClientProvider client={queryClient}>
        <Outlet />
      </QueryClientProvider>
      <Footer />
    </div>
  )
}
