import { QueryClientProvider } from '@tanstack/react-query'
import { createFileRoute, Outlet, useNavigate } from '@tanstack/react-router'
import { LogoutButton } from '../features/auth/logout-button.tsx'
import { StoreSwitcher } from '../features/stores/store-switcher.tsx'
import { queryClient } from '../lib/query-client.ts'
import { guard } from './-guard.ts'
import { ProblemNotice } from './-problem-notice.tsx'

// The signed-in screens: their guard and their shared header.
export const Route = createFileRoute('/_authed')({
  beforeLoad: guard(true),
  component: SignedInLayout,
})

function SignedInLayout() {
  const navigate = useNavigate()
  return (
    <div className="app">
      <header className="app-header">
        <StoreSwitcher />
        <picture className="app-logo">
          {/* On a phone the mark alone, so the store name keeps its room. */}
          <source media="(max-width: 479px)" srcSet="/favicon.svg" width={32} height={32} />
          <img src="/logo.svg" alt="Logo" lang="en" width={148} height={32} />
        </picture>
        <LogoutButton onLoggedOut={() => navigate({ to: '/', replace: true })} />
      </header>
      <ProblemNotice />
      <QueryClientProvider client={queryClient}>
        <Outlet />
      </QueryClientProvider>
    </div>
  )
}
