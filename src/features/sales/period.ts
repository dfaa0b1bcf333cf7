// The selected year and month (1 to 12), stepped and labelled. Which period it is now is the clock's
// (figures/clock.ts), and the route applies it as the default.
import type { Period } from '../../figures/clock.ts'

export type { Period }

/** One month forward or back; December steps to January of the next year and back again. */
export function stepMonth({ year, month }: Period, step: 1 | -1): Period {
  const index = year * 12 + (month - 1) + step
  return { year: Math.floor(index / 12), month: (index % 12) + 1 }
}

/** The month marked in the dropdown: the selected one, only while the dropdown shows the selected year. */
export const highlightedMonth = (shownYear: number, selected: Period): number | null =>
  shownYear === selected.year ? selected.month : null

export const periodLabel = ({ year, month }: Period) => `${year}년 ${month}월`
