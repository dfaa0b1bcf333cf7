import { request } from '../../lib/api.ts'
import { page } from '../../lib/page.ts'
import { clearDevice } from '../../lib/session.ts'
import { getRefreshToken, isOwnSignIn } from '../../lib/tokens.ts'

/**
 * Asks, tells, then forgets the session. The session ends on this device the moment the
 * owner confirms, before the message is shown: every request still running for it is aborted and no
 * answer of it is taken in afterwards. The server is asked to end the sign-in too (a public call that
 * belongs to no session, so ending the session does not abort it); that may fail (offline, or a
 * server without the call) without stopping the logout.
 */
export async function logOut(): Promise<boolean> {
  if (!page.confirm('Do you want to log out?')) return false
  // Only this tab's own sign-in is revoked, never another one made in another tab meanwhile.
  const refresh = isOwnSignIn() ? getRefreshToken() : undefined
  const cleared = clearDevice()
  if (refresh) {
    request(`/api/v0/user/sign?token=${encodeURIComponent(refresh)}`, {
      method: 'DELETE',
      auth: false,
      keepalive: true,
    }).catch(() => {})
  }
  page.alert('You have been logged out.')
  await cleared
  return true
}
