// Local storage as a tab may use it for a sign-in's state (the user and stores, the kept figures and
// totals), which every tab of the device shares with the sign-in its cookies hold. A tab writes there
// only for its own sign-in, and removes only while no other sign-in holds the device: a tab that learns
// late that another user signed in elsewhere ends its own session without touching the new one's state
// (docs/product.md §4.5), and what its screens still write before it notices is dropped.
import { isOtherSignIn, isOwnSignIn } from './tokens.ts'

/**
 * May this tab keep user data on the device (the user and stores, figures, totals): only while the
 * cookies hold its own sign-in (tokens.ts). Not the guards' question, signed in or not (`isSignedIn`,
 * session-state.ts): that follows the remembered session, which outlives its cookies until the
 * session's life ends it.
 */
export const mayKeepUserData = isOwnSignIn

/** May this tab forget the device's user data: unless another sign-in (made in another tab) holds it. */
export const mayForgetUserData = () => !isOtherSignIn()

export const signInStorage = {
  getItem: (key: string) => localStorage.getItem(key),
  setItem(key: string, value: string) {
    if (mayKeepUserData()) localStorage.setItem(key, value)
  },
  removeItem(key: string) {
    if (mayForgetUserData()) localStorage.removeItem(key)
  },
}
