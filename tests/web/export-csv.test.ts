import { describe, expect, it } from 'vitest'
import { csvFileName, type ExportSource, periodCsv } from '../../src/features/sales/export-csv.ts'

function source(year: number): ExportSource {
  const days = Array.from({ length: 12 }, (_, m) =>
    Array.from({ length: new Date(Date.UTC(year, m + 1, 0)).getUTCDate() }, () => 0),
  )
  const dayCounts = days.map((month) => month.map(() => 0))
  return { year, days, dayCounts, months: Array(12).fill(0), monthCounts: Array(12).fill(0) }
}

describe('the CSV export', () => {
  const data = source(2026)
  ;(data.days[10] as number[])[0] = 4000
  ;(data.dayCounts[10] as number[])[0] = 1
  ;(data.days[10] as number[])[2] = 12500
  ;(data.dayCounts[10] as number[])[2] = 3
  data.months[10] = 16500
  data.monthCounts[10] = 4
  data.months[0] = -3000
  const today = new Date('2026-11-03T15:00:00.000Z')

  it('a month: a byte order mark, a Korean header, one row per day up to today, plain numbers, CRLF', () => {
    const text = periodCsv(data, { year: 2026, month: 11 }, false, today)
    expect(text.startsWith('\uFEFF')).toBe(true)
    expect(text.slice(1).split('\r\n')).toEqual([
      '날짜,매출(원),결제 건수',
      '2026-11-01,4000,1',
      '2026-11-02,0,0',
      '2026-11-03,12500,3',
      '',
    ])
  })

  it('a past month: every day of it', () => {
    const text = periodCsv(data, { year: 2026, month: 2 }, false, today)
    expect(text.slice(1).split('\r\n')).toHaveLength(1 + 28 + 1)
  })

  it('a year: one row per month up to this month, refunds as negative sums', () => {
    const text = periodCsv(data, { year: 2026, month: 11 }, true, today)
    const rows = text.slice(1).split('\r\n')
    expect(rows[0]).toBe('월,매출(원),결제 건수')
    expect(rows[1]).toBe('2026-01,-3000,0')
    expect(rows[11]).toBe('2026-11,16500,4')
    expect(rows).toHaveLength(1 + 11 + 1)
  })

  it('names the file with the store and period', () => {
    expect(csvFileName('행복빨래방', { year: 2026, month: 11 }, false)).toBe('행복빨래방_2026-11.csv')
    expect(csvFileName('하얀 셀프빨래방 대치점', { year: 2026, month: 3 }, true)).toBe(
      '하얀_셀프빨래방_대치점_2026.csv',
    )
    expect(csvFileName('a/b:c*d', { year: 2026, month: 1 }, false)).toBe('a_b_c_d_2026-01.csv')
  })
})
