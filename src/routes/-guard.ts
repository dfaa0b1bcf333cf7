import { redirect } from '@tanstack/react-router'
import { isLoggedIn } from '../lib/session.ts'

/** The one guard (SPEC.md 2): signed-in screens send others to /login, /login sends the signed-in to /. */
export const guard = (signedIn: boolean) => () => {
  if (isLoggedIn() !== signedIn) throw redirect({ to: signedIn ? '/login' : '/', replace: true })
}
