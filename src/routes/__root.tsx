import { createRootRouteWithContext, Outlet } from '@tanstack/react-router'
import { UpdatePrompt } from '../pwa/update-prompt.tsx'
import type { RouterContext } from './-context.ts'
import { NotFound, RouteError } from './-route-views.tsx'

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
