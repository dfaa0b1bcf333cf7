// The phone number rule, one owner for the server's sign-in (server/sign-in/phone.ts), the app's
// login form (src/features/auth/) and the first painter (src/shell/paint-first.ts, which has this file
// built in): no imports. The request schema (`Phone` in api.ts) only bounds what a request may carry.

/** Digits only: hyphens and spaces in what the owner types are ignored. */
export const phoneDigits = (typed: string) => typed.replace(/[\s-]/g, '')

/**
 * Whether the login form's code button is enabled: 10 or 11 digits (docs/product.md §2.1). Looser than
 * the server's rule on purpose (decision 55): every number the server takes enables it, and a number it
 * refuses gets the server's message rather than a button that stays grey without a word.
 */
export const isPhoneComplete = (typed: string) => /^[0-9]{10,11}$/.test(phoneDigits(typed))

/** A Korean mobile number as the server takes it (10 or 11 digits, starting with 01): its digits, or null. */
export function mobileNumberOf(typed: string): string | null {
  const digits = phoneDigits(typed)
  return /^01[0-9]{8,9}$/.test(digits) ? digits : null
}
