// The access and refresh tokens, in the cookies `accessToken` and `refreshToken` (SPEC.md 3), so that
// every tab shares them and another tab's logout is seen here.
import Cookies from 'js-cookie'
import type { SignAnswer } from '../../contract/api.ts'

const names = { access: 'accessToken', refresh: 'refreshToken' } as const
/** The cookies expire with the sign-in, whose absolute lifetime is 14 days on our server. */
const lifetimeDays = 14

const attributes = () => ({
  path: '/',
  sameSite: 'strict' as const,
  secure: window.location.protocol === 'https:',
})

export const getAccessToken = () => Cookies.get(names.access)
export const getRefreshToken = () => Cookies.get(names.refresh)

export function setTokens(token: SignAnswer['token']) {
  Cookies.set(names.access, token.access, { ...attributes(), expires: lifetimeDays })
  Cookies.set(names.refresh, token.refresh, { ...attributes(), expires: lifetimeDays })
}

export function removeTokens() {
  Cookies.remove(names.access, attributes())
  Cookies.remove(names.refresh, attributes())
}
