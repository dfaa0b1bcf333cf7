// The access and refresh tokens, in the cookies `accessToken` and `refreshToken` (docs/product.md §3), so that
// every tab shares them and another tab's logout is seen here.
//
// With the refresh token, in the cookie `refreshRetryKey`, goes its attempt key: a random string made
// at sign-in and kept for the sign-in's life, sent with every exchange of its tokens (the browser
// sends the cookie with the call; the URL holds the token only, since proxies log URLs). When an
// exchange's answer is lost (the server rotated the token, the phone never heard), the next exchange
// presents the same token with the same key, and the server gives the same new token again instead of
// taking the spent token for a stolen one and ending the sign-in (docs/product.md §4.3).
//
// The sign-in on this device has a generation: removing the tokens (every logout, and every sign-out
// seen from elsewhere) starts a new one and aborts every request still running for the old one. A
// request notes the generation it started in, and nothing it brings back (tokens, the user and stores,
// figures) is taken in unless that generation is still the current one: the end of a session wins
// over every answer still in flight.
//
// A sign-in also has an id, a random string the client writes at sign-in in the cookie `signInId`
// (a token exchange keeps it). Tokens rotate under any tab, so only the id tells whether the cookies
// are still the sign-in this tab started with or signed in with: a tab whose id differs from the
// cookie's (another user signed in while it was not looking) has been signed out elsewhere.
import type { SignAnswer } from '../../contract/api.ts'
// The two cookies the first painter reads too have their names in shell/names.ts.
import { readCookie, writeCookie } from '../shell/cookies.ts'
import { refreshTokenCookie, signInIdCookie } from '../shell/names.ts'

const accessTokenCookie = 'accessToken'
const refreshRetryKeyCookie = 'refreshRetryKey'

/** The cookies expire with the sign-in, whose absolute lifetime is 14 days on our server. */
const lifetimeDays = 14

export const getAccessToken = () => readCookie(accessTokenCookie)
export const getRefreshToken = () => readCookie(refreshTokenCookie)
export const getSignInId = () => readCookie(signInIdCookie)

const write = (name: string, value: string) => writeCookie(name, value, lifetimeDays)
/** 128 random bits as hex (crypto.randomUUID exists only in secure contexts; this works over plain http too). */
const randomId = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join(
    '',
  )

/**
 * The attempt key of the stored refresh token. A refresh token stored without one (before there were
 * keys) gets one now, written before it is first sent, so that a retry of that exchange sends it too.
 */
export function getRefreshRetryKey(): string {
  const stored = readCookie(refreshRetryKeyCookie)
  if (stored) return stored
  const key = randomId()
  write(refreshRetryKeyCookie, key)
  return key
}

/** The id of the sign-in this tab belongs to (undefined: none). */
let signInId = getSignInId()

/**
 * At the start of a tab: remembers the sign-in the cookies hold. Tokens without an id (a device signed
 * in before there were ids) get one now, once, so that the owner stays signed in.
 */
export function adoptSignIn() {
  if (getRefreshToken() !== undefined && getSignInId() === undefined) write(signInIdCookie, randomId())
  signInId = getSignInId()
}

/** The cookies hold the sign-in this tab belongs to: a refresh token, and this tab's sign-in id. */
export const isOwnSignIn = () => getRefreshToken() !== undefined && getSignInId() === signInId

/** The cookies hold a sign-in, but not this tab's: another one was made in another tab. */
export const isOtherSignIn = () => getRefreshToken() !== undefined && getSignInId() !== signInId

let generation = 0
let ending = new AbortController()

/** The generation of the sign-in now; a request notes it when it starts. */
export const sessionGeneration = () => generation

/** Aborted when the session of the current generation ends: every request of that session stops. */
export const sessionSignal = () => ending.signal

/** The generation a request started in is still the current one (nothing ended it on this device). */
export const isCurrentGeneration = (startedIn: number) => startedIn === generation

/**
 * The session a request started in is still this device's: not ended here, and its sign-in neither
 * logged out nor replaced by another sign-in in another tab (which this tab may not have noticed yet).
 */
export const isSessionCurrent = (startedIn: number) => isCurrentGeneration(startedIn) && isOwnSignIn()

/**
 * Stores a token pair obtained by a request that started in `startedIn`; false (and nothing written)
 * when that session has ended since. A sign-in (`signIn`) starts a new sign-in id; an exchange keeps
 * the id, and writes nothing when the cookies hold another sign-in than this tab's.
 */
export function setTokens(token: SignAnswer['token'], startedIn: number, signIn = false): boolean {
  if (!isCurrentGeneration(startedIn)) return false
  if (signIn) {
    signInId = randomId()
    write(signInIdCookie, signInId)
    // One attempt key for the sign-in, kept by every exchange: the browser adds the cookie when a call
    // goes out, so a tab that read the refresh token just before another tab's exchange was answered
    // still sends the key that token was exchanged with (a new key per token would make that reuse,
    // and end the sign-in). The server derives each successor from the token and the key.
    write(refreshRetryKeyCookie, randomId())
  } else if (!isOwnSignIn()) {
    return false
  }
  write(accessTokenCookie, token.access)
  write(refreshTokenCookie, token.refresh)
  return true
}

/**
 * Ends the session on this device: a new generation, every request of the old one aborted, the cookies
 * removed. Cookies of another sign-in (made in another tab) are that sign-in's and stay. Answers
 * whether the device was this session's (and is no one's now).
 */
export function removeTokens(): boolean {
  generation += 1
  const ended = ending
  ending = new AbortController()
  ended.abort()
  const id = getSignInId()
  const ours = id === undefined || id === signInId
  if (ours) {
    writeCookie(accessTokenCookie, '', -1)
    writeCookie(refreshTokenCookie, '', -1)
    writeCookie(refreshRetryKeyCookie, '', -1)
    writeCookie(signInIdCookie, '', -1)
  }
  signInId = undefined
  return ours
}
