import { request } from '../../lib/api.ts'
import { page } from '../../lib/page.ts'
import { clearDevice } from '../../lib/session.ts'
import { getRefreshToken } from '../../lib/tokens.ts'

/**
 * SPEC.md 2: asks, tells, then forgets the session. The server is asked to end the sign-in too; that
 * may fail (offline, or a server without the call) without stopping the logout.
 */
export async function logOut(): Promise<boolean> {
  if (!page.confirm('Do you want to log out?')) return false
  const refresh = getRefreshToken()
  if (refresh) {
    request(`/api/v0/user/sign?token=${encodeURIComponent(refresh)}`, {
      method: 'DELETE',
      auth: false,
      keepalive: true,
    }).catch(() => {})
  }
  page.alert('You have been logged out.')
  await clearDevice()
  return true
}
