import { redirect } from '@tanstack/react-router'
import type { RouterContext } from './-context.ts'

// The guards ask one question: signed in as the device remembers it (`isSignedIn`, lib/session-state.ts).
// Whether this tab may keep user data is another question, the cookies' (`mayKeepUserData`,
// lib/sign-in-storage.ts); a remembered session whose cookies are gone is ended before the first guard
// runs (startSessionLife in main.tsx), so a guard never lets in a session the device knows has ended.

/**
 * The signed-in screens' guard: a device that is not signed in is sent to the login screen, with the
 * page it asked for (but the sales screen, where a sign-in lands anyway) to return to once signed in
 * (features/auth/return-target.ts).
 */
export function requireSignedIn({
  context,
  location,
}: {
  context: RouterContext
  location: { href: string }
}) {
  if (!context.session.isSignedIn())
    throw redirect({
      to: '/login',
      search: location.href === '/' ? {} : { redirect: location.href },
      replace: true,
    })
}

/** The login screen's guard: a signed-in device is sent to the sales screen. */
export function requireSignedOut({ context }: { context: RouterContext }) {
  if (context.session.isSignedIn()) throw redirect({ to: '/', replace: true })
}
