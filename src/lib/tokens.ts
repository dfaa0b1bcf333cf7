// The access and refresh tokens, in the cookies `accessToken` and `refreshToken` (SPEC.md 3), so that
// every tab shares them and another tab's logout is seen here.
//
// The sign-in on this device has a generation: removing the tokens (every logout, and every sign-out
// seen from elsewhere) starts a new one and aborts every request still running for the old one. A
// request notes the generation it started in, and nothing it brings back (tokens, the user and stores,
// figures) is taken in unless that generation is still the current one: the end of a session wins
// over every answer still in flight.
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

let generation = 0
let ending = new AbortController()

/** The generation of the sign-in now; a request notes it when it starts. */
export const sessionGeneration = () => generation

/** Aborted when the session of the current generation ends: every request of that session stops. */
export const sessionSignal = () => ending.signal

/** The generation a request started in is still the current one (nothing ended it on this device). */
export const isCurrentGeneration = (startedIn: number) => startedIn === generation

/**
 * The session a request started in is still this device's: not ended here, and its refresh token
 * not removed by a logout in another tab (which this tab may not have noticed yet).
 */
export const isSessionCurrent = (startedIn: number) =>
  isCurrentGeneration(startedIn) && getRefreshToken() !== undefined

/** Stores a token pair obtained by a request that started in `startedIn`; false (and nothing written) when that session has ended since. */
export function setTokens(token: SignAnswer['token'], startedIn: number): boolean {
  if (!isCurrentGeneration(startedIn)) return false
  Cookies.set(names.access, token.access, { ...attributes(), expires: lifetimeDays })
  Cookies.set(names.refresh, token.refresh, { ...attributes(), expires: lifetimeDays })
  return true
}

/** Ends the session on this device: a new generation, every request of the old one aborted, the cookies removed. */
export function removeTokens() {
  generation += 1
  const ended = ending
  ending = new AbortController()
  ended.abort()
  Cookies.remove(names.access, attributes())
  Cookies.remove(names.refresh, attributes())
}
