import { createRootRoute, Outlet } from '@tanstack/react-router'
import { UpdatePrompt } from '../pwa/update-prompt.tsx'
import { NotFound, RouteError } from './-route-views.tsx'

export const Route = createRootRoute({
  component: () => (
    <>
      <Outlet />
      <UpdatePrompt />
    </>
  ),
  errorComponent: RouteError,
  notFoundComponent: NotFound,
})
