// The machines section's pure rules: states in Korean, how long ago, bar widths, method shares, the rest
// on no machine (docs/product.md §14), and the VAT periods the tax export offers by the Korean calendar
// (decision 173).
import { describe, expect, it } from 'vitest'
import {
  agoText,
  barPercent,
  methodShares,
  restOfMonth,
  stateText,
} from '../../../src/features/sales/machines/machine-text.ts'
import { taxFileName, vatPeriods } from '../../../src/features/sales/machines/tax-periods.ts'

describe("a machine's words", () => {
  it('says its state, nothing when never reported', () => {
    expect(stateText({ state: 'running', code: null })).toBe('사용 중')
    expect(stateText({ state: 'idle', code: null })).toBe('대기')
    expect(stateText({ state: 'error', code: 'E21' })).toBe('고장 E21')
    expect(stateText({ state: 'error', code: null })).toBe('고장')
    expect(stateText({ state: 'offline', code: null })).toBe('응답 없음')
    expect(stateText({ state: null, code: null })).toBeNull()
  })
  it('says how long ago in Korean', () => {
    const now = Date.parse('2026-11-25T09:00:00.000Z')
    expect(agoText('2026-11-25T08:59:30.000Z', now)).toBe('방금')
    expect(agoText('2026-11-25T09:00:30.000Z', now)).toBe('방금')
    expect(agoText('2026-11-25T08:05:00.000Z', now)).toBe('55분 전')
    expect(agoText('2026-11-25T06:00:00.000Z', now)).toBe('3시간 전')
    expect(agoText('2026-11-20T09:00:00.000Z', now)).toBe('5일 전')
    expect(agoText('2026-07-01T09:00:00.000Z', now)).toBe('4개월 전')
    expect(agoText('2024-11-01T09:00:00.000Z', now)).toBe('2년 전')
  })
  it('makes bars proportional to the largest, none below zero', () => {
    expect(barPercent(50, 200)).toBe(25)
    expect(barPercent(1, 3)).toBe(33.3)
    expect(barPercent(-10, 200)).toBe(0)
    expect(barPercent(0, 0)).toBe(0)
  })
  it("shares the month's sales by method, and leaves the rest to no machine", () => {
    expect(
      methodShares([
        { method: 'cash', sum: 1_000, count: 1 },
        { method: 'card', sum: 3_000, count: 2 },
        { method: 'point', sum: 0, count: 0 },
      ]).map(({ name, percent }) => [name, percent]),
    ).toEqual([
      ['카드', 75],
      ['현금', 25],
    ])
    expect(methodShares([])).toEqual([])
    expect(
      restOfMonth(10_000, [{ month: { sum: 7_000, count: 1 } }, { month: { sum: 3_000, count: 1 } }]),
    ).toBe(0)
    expect(restOfMonth(10_000, [{ month: { sum: 6_500, count: 1 } }])).toBe(3_500)
    expect(restOfMonth(0, [{ month: { sum: 2_000, count: 1 } }])).toBe(-2_000)
  })
})

describe('the VAT periods', () => {
  it("offers this year's begun periods (the current one up to today, in Korea) and last year's two", () => {
    expect(vatPeriods(new Date('2026-03-10T00:00:00.000Z'))).toEqual([
      { label: '2026년 1기 (1–6월)', from: '2026-01-01', to: '2026-03-10' },
      { label: '2025년 2기 (7–12월)', from: '2025-07-01', to: '2025-12-31' },
      { label: '2025년 1기 (1–6월)', from: '2025-01-01', to: '2025-06-30' },
    ])
  })
  it('goes by the Korean calendar: 15:00 UTC on 31 December is already the new year', () => {
    expect(vatPeriods(new Date('2026-12-31T15:00:00.000Z')).map((period) => period.label)).toEqual([
      '2027년 1기 (1–6월)',
      '2026년 2기 (7–12월)',
      '2026년 1기 (1–6월)',
    ])
    expect(vatPeriods(new Date('2026-12-31T14:59:00.000Z'))[0]).toEqual({
      label: '2026년 2기 (7–12월)',
      from: '2026-07-01',
      to: '2026-12-31',
    })
  })
  it('names the file as the server does, else after the store and range, safely', () => {
    expect(taxFileName('행복 빨래방/역삼', '2026-01-01', '2026-06-30')).toBe(
      '행복_빨래방_역삼_매출_2026-01-01_2026-06-30_KST.csv',
    )
    const disposition = `attachment; filename="sales-2026-01-01-2026-06-30-KST.csv"; filename*=UTF-8''${encodeURIComponent('역삼점_매출_2026-01-01_2026-06-30_KST.csv')}`
    expect(taxFileName('x', '2026-01-01', '2026-06-30', disposition)).toBe(
      '역삼점_매출_2026-01-01_2026-06-30_KST.csv',
    )
    expect(taxFileName('역삼점', '2026-01-01', '2026-06-30', "attachment; filename*=UTF-8''%E0%A4%A")).toBe(
      '역삼점_매출_2026-01-01_2026-06-30_KST.csv',
    )
  })
})
