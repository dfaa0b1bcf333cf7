import { render } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { Change } from '../../src/lib/change.tsx'

const shown = (ratio: number | null, digits?: number) => {
  const { container } = render(<Change ratio={ratio} against="작년 같은 기간보다" digits={digits} />)
  const change = container.querySelector('.change') as HTMLElement
  return { className: change.className, text: change.textContent }
}

describe('a change', () => {
  it('is coloured up or down with its arrow and words', () => {
    expect(shown(0.123)).toEqual({ className: 'change is-up', text: '▲ 12.3%작년 같은 기간보다 12.3% 증가' })
    expect(shown(-0.04)).toEqual({ className: 'change is-down', text: '▼ 4.0%작년 같은 기간보다 4.0% 감소' })
    expect(shown(null)).toEqual({ className: 'change', text: '—작년 같은 기간보다 비교할 자료 없음' })
  })

  it('that rounds to zero is not coloured: a red `0.0%` would say a fall the words deny', () => {
    expect(shown(-0.0004)).toEqual({ className: 'change', text: '0.0%작년 같은 기간보다 변동 없음' })
    expect(shown(0.0004)).toEqual({ className: 'change', text: '0.0%작년 같은 기간보다 변동 없음' })
    expect(shown(-0.004, 0)).toEqual({ className: 'change', text: '0%작년 같은 기간보다 변동 없음' })
  })
})
