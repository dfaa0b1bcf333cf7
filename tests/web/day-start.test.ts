import { describe, expect, it } from 'vitest'
import { dayStartNote } from '../../src/features/sales/day-start.ts'

describe('when a UTC day starts on the device', () => {
  it.each([
    [540, '하루는 오전 9시에 시작합니다 (UTC 기준)'],
    [0, '하루는 자정에 시작합니다 (UTC 기준)'],
    [330, '하루는 오전 5시 30분에 시작합니다 (UTC 기준)'],
    [-300, '하루는 오후 7시에 시작합니다 (UTC 기준)'],
    [-720, '하루는 오후 12시에 시작합니다 (UTC 기준)'],
    [60, '하루는 오전 1시에 시작합니다 (UTC 기준)'],
    [825, '하루는 오후 1시 45분에 시작합니다 (UTC 기준)'],
  ])('%i minutes ahead of UTC: %s', (offset, note) => {
    expect(dayStartNote(offset)).toBe(note)
  })

  it('the device clock the test runs on agrees with Date arithmetic', () => {
    const offset = -new Date().getTimezoneOffset()
    const localMidnightOfUtc = new Date(Date.UTC(2026, 10, 24))
    const hour = localMidnightOfUtc.getHours()
    expect(dayStartNote(offset)).toContain(hour === 0 ? '자정' : `${hour % 12 === 0 ? 12 : hour % 12}시`)
  })
})
