// The life of a session in this tab, in one place: the check of a remembered session when the app
// starts (its body in session-check.ts, loaded only by a device that starts signed in), the watch for
// a sign-out made in another tab, the logout button, and the one way a session ends (endSession),
// which every ending takes: the logout button, a sign-in the server no longer honours, another tab's
// logout or sign-in, a remembered session whose cookies are gone, a user left with no stores, and the
// sign-in's own two (sign-in.ts: a user with no stores, and tokens stored without a profile to show).
// Each wipes the device the same way (wipeDevice, in lib/session-state.ts) and lands on the same page:
// '/', which the guard turns into the login screen (or the page reloads, or the login form stays).
import { dropUsageEarly } from '../../figures/year-request.ts'
import { onSessionEnded, refreshTokenPath, request } from '../../lib/api.ts'
import { page, reloadFor } from '../../lib/page.ts'
import { isSignedIn, wipeDevice } from '../../lib/session-state.ts'
import { adoptSignIn, getRefreshToken, isOwnSignIn } from '../../lib/tokens.ts'

/** Shows the screen a session's end lands on; set when the tab starts (startSessionLife). */
let landAfterEnd: () => void = () => {}

/** How a session's end lands (endSession). */
export interface Ending {
  /** The page reloads where the product's rules say so ('signed-out', at most once a minute), else lands on '/'. */
  reload?: boolean
  /**
   * Lands nowhere: the login screen's own sign-in failed after its tokens were stored, and its form
   * stays to say why (sign-in.ts).
   */
  stay?: boolean
}

/**
 * Ends the session on this device. The device is wiped at once (every request of the session is
 * aborted before anything is awaited, and no answer of it is taken in afterwards); then the app goes
 * to '/', which shows the login screen, or the page reloads (`reload`), or nothing more (`stay`).
 */
export async function endSession({ reload = false, stay = false }: Ending = {}): Promise<void> {
  // The usage answer asked for early is the session's too (its request is aborted with the session's
  // others): dropped here, since the wipe (lib/) never reaches into figures/.
  dropUsageEarly()
  await wipeDevice()
  if (stay) return
  if (!reload || !reloadFor('signed-out')) landAfterEnd()
}

/**
 * The logout button: asks, tells, then ends the session. The session ends the moment the owner
 * confirms, before the message is shown. The server is asked to end the sign-in too (a public call
 * that belongs to no session, so ending the session does not abort it); that may fail (offline, or a
 * server without the call) without stopping the logout.
 */
export async function logOut(): Promise<boolean> {
  if (!page.confirm('Do you want to log out?')) return false
  // Only this tab's own sign-in is revoked, never another one made in another tab meanwhile.
  const refresh = isOwnSignIn() ? getRefreshToken() : undefined
  const ended = endSession()
  if (refresh) {
    request(refreshTokenPath(refresh), { method: 'DELETE', auth: false, keepalive: true }).catch(() => {})
  }
  page.alert('You have been logged out.')
  await ended
  return true
}

/**
 * Signed in as the guards see it, while the cookies no longer hold this tab's sign-in (removed by a
 * logout in another tab, expired, or replaced by another sign-in): the session has ended, elsewhere or by itself.
 */
const signInGone = () => isSignedIn() && !isOwnSignIn()

/**
 * Follows a sign-out made in another tab within about 300 ms: its cookies removed, or replaced by
 * another sign-in (the sign-in id differs from this tab's; a token refresh keeps the id). Through the
 * Cookie Store API's change event where the browser has one, else by looking every 300 ms.
 */
export function watchForSignOutElsewhere(signedOut: () => void = () => void endSession()): () => void {
  const check = () => {
    if (signInGone()) signedOut()
  }
  const cookieStore = (window as { cookieStore?: EventTarget }).cookieStore
  if (cookieStore) {
    cookieStore.addEventListener('change', check)
    return () => cookieStore.removeEventListener('change', check)
  }
  const timer = window.setInterval(check, 300)
  return () => window.clearInterval(timer)
}

/**
 * Starts the session's life in this tab: remembers which sign-in the tab belongs to, ends the session
 * whenever a request finds the sign-in gone or another tab signs out, and checks a remembered session
 * against the server. `home` navigates to '/'. Returns what stops the watch (tests start it again).
 */
export function startSessionLife(home: () => void): () => void {
  landAfterEnd = home
  adoptSignIn()
  onSessionEnded(() => void endSession())
  const stopWatching = watchForSignOutElsewhere()
  // A remembered session whose cookies are gone (they expire with the sign-in) has ended, and the device
  // knows it without asking the server: it is wiped now, offline too, before any screen shows it.
  if (signInGone()) void endSession()
  // Loaded only when the device starts signed in, so the login screen does not carry it. The check
  // ends a session through endSession, handed to it (session-check.ts imports nothing of this module).
  else if (isSignedIn())
    void import('./session-check.ts').then(({ recheckSession }) => recheckSession(endSession))
  return stopWatching
}
