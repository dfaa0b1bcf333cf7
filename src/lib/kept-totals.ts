// The two totals the sales screen last showed, kept apart from the figures so that a repeat visit can
// paint them at once, before the app's code has arrived and run (shell/paint-first.ts, a script of its own
// that index.html loads). They are kept formatted: the painter carries no code of ours but itself and
// the few small pure modules built into it (build/index-html.ts). Written only for this tab's own
// sign-in (sign-in-storage.ts), with that sign-in's id, so that the painter never shows them under
// another sign-in; wipeDevice forgets them with everything else, and a profile that no longer lists
// their store forgets them too.
import type { KeptTotals, KeptTotalsOfSignIn } from '../shell/kept-totals.ts'
import { keptTotalsKey } from '../shell/names.ts'
import { signInStorage } from './sign-in-storage.ts'
import { getSignInId } from './tokens.ts'

export function keepTotals(totals: KeptTotals) {
  try {
    signInStorage.setItem(
      keptTotalsKey,
      JSON.stringify({ ...totals, signInId: getSignInId() } satisfies KeptTotalsOfSignIn),
    )
  } catch {
    // A full or refused storage only costs the next visit its early totals.
  }
}

export const forgetTotals = () => signInStorage.removeItem(keptTotalsKey)

/** Forgets the kept totals unless their store is one of these (a profile no longer lists it). */
export function forgetTotalsUnlessOf(storeIds: readonly number[]) {
  const text = localStorage.getItem(keptTotalsKey)
  if (text === null) return
  try {
    if (storeIds.includes((JSON.parse(text) as Partial<KeptTotals>).storeId as number)) return
  } catch {
    // Damaged: forgotten with the others.
  }
  forgetTotals()
}
