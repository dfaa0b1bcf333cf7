// The app's one clock, and the period it is now. "Now", "this year" and "this month" are read here and
// nowhere else: by every screen, by the sales screen's address, by the sign-in's early figures, and by
// the first painter (which carries its own copy of this file, build/index-html.ts), so that they all agree at
// every instant. Periods are UTC months (docs/product.md decision 4): from 00:00 to 08:59 in Korea on
// the 1st, it is still the month before.
//
// It imports nothing and touches nothing but the Date: the painter, a classic script, inlines it.

export interface Period {
  year: number
  /** 1 to 12 */
  month: number
}

/** Now: the one reading of the device's clock a screen takes for a render and hands down (tests fix it). */
export const now = () => new Date()

/** The period an instant falls in, by default now's: its UTC year and month. */
export const currentPeriod = (at = now()): Period => ({
  year: at.getUTCFullYear(),
  month: at.getUTCMonth() + 1,
})
