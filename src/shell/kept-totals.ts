// The shape of the totals the sales screen keeps for the first painter (paint-first.ts) to paint on a
// repeat visit: types only, so that the painter carries no code for them. The app keeps and forgets
// them with lib/kept-totals.ts.

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

/** What is kept: the totals, and the id of the sign-in they were shown to (the cookie `signInId`). */
export type KeptTotalsOfSignIn = KeptTotals & { signInId?: string }
