// The two totals the sales screen last showed, kept apart from the figures so that a repeat visit can
// paint them at once, before the app's code has arrived and run (src/paint-first.ts, a script of
// its own that index.html loads). They are kept formatted: the painter carries no code of ours but
// itself. Written only while someone is signed in; wipeDevice forgets them with everything else.
import { getRefreshToken } from './tokens.ts'

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
  if (getRefreshToken() === undefined) return
  try {
    localStorage.setItem(keptTotalsKey, JSON.stringify(totals))
  } catch {
    // A full or refused storage only costs the next visit its early totals.
  }
}

export const forgetTotals = () => localStorage.removeItem(keptTotalsKey)
