// The selected year and month: the year defaults to this year, the month to this month (1 to 12).

export interface Period {
  year: number
  month: number
}

export const currentPeriod = (today = new Date()): Period => ({
  year: today.getFullYear(),
  month: today.getMonth() + 1,
})

/** One month forward or back; December steps to January of the next year and back again. */
export function stepMonth({ year, month }: Period, step: 1 | -1): Period {
  const index = year * 12 + (month - 1) + step
  return { year: Math.floor(index / 12), month: (index % 12) + 1 }
}

/** The month marked in the dropdown: the selected one, only while the dropdown shows the selected year. */
export const highlightedMonth = (shownYear: number, selected: Period): number | null =>
  shownYear === selected.year ? selected.month : null

export const periodLabel = ({ year, month }: Period) => `${year}년 ${month}월`
