// The VAT periods the tax export offers as one click each (docs/product.md §14, decision 173): this
// year's 1기 (January–June) and 2기 (July–December) and last year's two, by the Korean calendar. A
// period under way ends today; one not yet begun is not offered.

export interface TaxPeriod {
  label: string
  /** Korean calendar days, `YYYY-MM-DD`, both included. */
  from: string
  to: string
}

const kstOffsetMs = 9 * 60 * 60_000

/** Today in Korea, `YYYY-MM-DD`. */
export const kstToday = (now: Date) => new Date(now.getTime() + kstOffsetMs).toISOString().slice(0, 10)

/** The VAT periods of this year (in Korea) and last year, newest first, those begun by today. */
export function vatPeriods(now: Date): TaxPeriod[] {
  const today = kstToday(now)
  const year = Number(today.slice(0, 4))
  const periods: TaxPeriod[] = []
  for (const y of [year, year - 1]) {
    for (const [half, from, to, months] of [
      [2, `${y}-07-01`, `${y}-12-31`, '7–12월'],
      [1, `${y}-01-01`, `${y}-06-30`, '1–6월'],
    ] as const) {
      if (from > today) continue
      periods.push({ label: `${y}년 ${half}기 (${months})`, from, to: to < today ? to : today })
    }
  }
  return periods
}

/**
 * The file's name: the server's (its Content-Disposition's `filename*`), else the same made here,
 * `행복빨래방_매출_2026-01-01_2026-06-30_KST.csv`; characters no file system allows become `_`.
 */
export function taxFileName(
  storeName: string,
  from: string,
  to: string,
  disposition?: string | null,
): string {
  const named = disposition?.match(/filename\*=UTF-8''([^;]+)/i)?.[1]
  if (named) {
    try {
      return decodeURIComponent(named)
    } catch {
      // A name that does not decode: ours.
    }
  }
  const store = storeName.replace(/[\\/:*?"<>|\p{Cc}]/gu, '_').replace(/\s+/g, '_')
  return `${store}_매출_${from}_${to}_KST.csv`
}
