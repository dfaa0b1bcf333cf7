import { render } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { Change } from '../../src/lib/change.tsx'

const shown = (ratio: number | null, digits?: number) => {
  const { container } = render(<Change ratio={ratio} against="지난달 같은 기간보다" digits={digits} />)
  const change = container.querySelector('.change')
  return { text: change?.textContent, className: change?.className }
}

describe('a change against an earlier period', () => {
  it('is an arrow and a percentage to see, and words to hear', () => {
    expect(shown(0.123)).toEqual({
      text: '▲ 12.3%지난달 같은 기간보다 12.3% 증가',
      className: 'change is-up',
    })
    expect(shown(-0.04)).toEqual({
      text: '▼ 4.0%지난달 같은 기간보다 4.0% 감소',
      className: 'change is-down',
    })
    expect(shown(0.126, 0)).toEqual({ text: '▲ 13%지난달 같은 기간보다 13% 증가', className: 'change is-up' })
  })

  it('that rounds to nothing is shown as no change, in no colour of gain or loss', () => {
    expect(shown(-0.0004)).toEqual({ text: '0.0%지난달 같은 기간보다 변동 없음', className: 'change' })
    expect(shown(0.0049, 0)).toEqual({ text: '0%지난달 같은 기간보다 변동 없음', className: 'change' })
    expect(shown(0)).toEqual({ text: '0.0%지난달 같은 기간보다 변동 없음', className: 'change' })
  })

  it('with nothing to compare is a dash', () => {
    expect(shown(null)).toEqual({ text: '—지난달 같은 기간보다 비교할 자료 없음', className: 'change' })
  })
})
