import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, Outlet } from '@tanstack/react-router'
import { UpdatePrompt } from '../pwa/update-prompt.tsx'
import { NotFound, RouteError } from './-route-views.tsx'

export interface RouterContext {
  queryClient: QueryClient
}

export const Route = createRootRouteWithContext<RouterContext>()({
  component: () => (
    <>
      <Outlet />
      <UpdatePrompt />
    </>
  ),
  errorComponent: RouteError,
  notFoundComponent: NotFound,
})
