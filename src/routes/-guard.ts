import { redirect } from '@tanstack/react-router'
import type { RouterContext } from './-context.ts'

/** The signed-in screens' guard: a device that is not signed in is sent to the login screen. */
export function requireSignedIn({ context }: { context: RouterContext }) {
  if (!context.session.isLoggedIn()) throw redirect({ to: '/login', replace: true })
}

/** The login screen's guard: a signed-in device is sent to the sales screen. */
export function requireSignedOut({ context }: { context: RouterContext }) {
  if (context.session.isLoggedIn()) throw redirect({ to: '/', replace: true })
}
