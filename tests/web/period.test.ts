import { describe, expect, it } from 'vitest'
import { highlightedMonth, periodLabel, stepMonth } from '../../src/features/sales/period.ts'
import { currentPeriod } from '../../src/figures/clock.ts'

describe('the selected period', () => {
  it('steps forward from December to January of the next year', () => {
    expect(stepMonth({ year: 2026, month: 12 }, 1)).toEqual({ year: 2027, month: 1 })
  })

  it('steps back from January to December of the previous year', () => {
    expect(stepMonth({ year: 2026, month: 1 }, -1)).toEqual({ year: 2025, month: 12 })
  })

  it('steps within a year without changing it', () => {
    expect(stepMonth({ year: 2026, month: 6 }, 1)).toEqual({ year: 2026, month: 7 })
    expect(stepMonth({ year: 2026, month: 6 }, -1)).toEqual({ year: 2026, month: 5 })
  })

  it('highlights the selected month only while the dropdown shows the selected year', () => {
    expect(highlightedMonth(2026, { year: 2026, month: 11 })).toBe(11)
    expect(highlightedMonth(2025, { year: 2026, month: 11 })).toBeNull()
    expect(highlightedMonth(2027, { year: 2026, month: 11 })).toBeNull()
  })

  it('defaults to this year and this month, 1 to 12, in UTC', () => {
    expect(currentPeriod(new Date(Date.UTC(2026, 0, 15)))).toEqual({ year: 2026, month: 1 })
    expect(currentPeriod(new Date(Date.UTC(2026, 11, 31, 23, 59)))).toEqual({ year: 2026, month: 12 })
    // 09:00 on 1 January in Korea is the first instant of the UTC year.
    expect(currentPeriod(new Date('2026-12-31T23:59:59.999Z'))).toEqual({ year: 2026, month: 12 })
    expect(currentPeriod(new Date('2027-01-01T09:00:00+09:00'))).toEqual({ year: 2027, month: 1 })
  })

  it('reads as `2026년 11월`', () => {
    expect(periodLabel({ year: 2026, month: 11 })).toBe('2026년 11월')
  })
})
