import { createFileRoute, Outlet, redirect } from '@tanstack/react-router'
import { isLoggedIn } from '../lib/session.ts'

// The one guard of the signed-in screens.
export const Route = createFileRoute('/_authed')({
  beforeLoad: () => {
    if (!isLoggedIn()) throw redirect({ to: '/login', replace: true })
  },
  component: Outlet,
})
