// The two totals the sales screen last showed, kept apart from the figures so that a repeat visit can
// paint them at once, before the app's code has arrived and run (src/paint-first.ts, a script of
// its own that index.html loads). They are kept formatted: the painter carries no code of ours but
// itself. Written only for this tab's own sign-in (sign-in-storage.ts); wipeDevice forgets them with
// everything else.
import { signInStorage } from './sign-in-storage.ts'

export const keptTotalsKey = 'laundry-kept-totals'

export interface KeptTotals {
  storeId: number
  year: number
  month: number
  storeName: string
  /** `2026년 매출` and its total, `319,099,000원` */
  yearLabel: string
  yearTotal: string
  /** `11월 매출` and its total */
  monthLabel: string
  monthTotal: string
  /** When the figures were fetched: `11월 24일 23:05 기준` */
  asOf: string
}

export function keepTotals(totals: KeptTotals) {
  try {
    signInStorage.setItem(keptTotalsKey, JSON.stringify(totals))
  } catch {
    // A full or refused storage only costs the next visit its early totals.
  }
}

export const forgetTotals = () => signInStorage.removeItem(keptTotalsKey)
