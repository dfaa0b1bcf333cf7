// Local storage as a tab may use it for a sign-in's state (the user and stores, the kept figures and
// totals), which every tab of the device shares with the sign-in its cookies hold. A tab writes there
// only for its own sign-in, and removes only while no other sign-in holds the device: a tab that learns
// late that another user signed in elsewhere ends its own session without touching the new one's state
// (docs/product.md §4.5), and what its screens still write before it notices is dropped.
import { isOtherSignIn, isOwnSignIn } from './tokens.ts'

export const signInStorage = {
  getItem: (key: string) => localStorage.getItem(key),
  setItem(key: string, value: string) {
    if (isOwnSignIn()) localStorage.setItem(key, value)
  },
  removeItem(key: string) {
    if (!isOtherSignIn()) localStorage.removeItem(key)
  },
}
