import { fireEvent, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import { MonthNavigator } from '../../src/features/sales/month-navigator.tsx'
import type { Period } from '../../src/features/sales/period.ts'

function Harness({ start }: { start: Period }) {
  const [period, setPeriod] = useState(start)
  return (
    <>
      <MonthNavigator period={period} onChange={setPeriod} />
      <p>outside</p>
    </>
  )
}

describe('the month navigator', () => {
  it('steps months with the arrows, across years', async () => {
    render(<Harness start={{ year: 2026, month: 12 }} />)
    const typist = userEvent.setup()
    await typist.click(screen.getByRole('button', { name: '다음 달' }))
    expect(screen.getByText('2027년 1월')).toBeInTheDocument()
    await typist.click(screen.getByRole('button', { name: '이전 달' }))
    await typist.click(screen.getByRole('button', { name: '이전 달' }))
    expect(screen.getByText('2026년 11월')).toBeInTheDocument()
  })

  it('opens with Enter, moves focus to the selected month, and Escape closes it and returns focus', async () => {
    render(<Harness start={{ year: 2026, month: 11 }} />)
    const typist = userEvent.setup()
    const opener = screen.getByRole('button', { name: '2026년 11월' })
    opener.focus()
    await typist.keyboard('{Enter}')
    expect(opener).toHaveAttribute('aria-expanded', 'true')
    const dialog = screen.getByRole('dialog', { name: '연도와 월 선택' })
    expect(screen.getByRole('button', { name: '11월' })).toHaveFocus()
    expect(dialog).toBeInTheDocument()
    await typist.keyboard('{Escape}')
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(opener).toHaveFocus()
  })

  it('opens with Space too', async () => {
    render(<Harness start={{ year: 2026, month: 11 }} />)
    screen.getByRole('button', { name: '2026년 11월' }).focus()
    await userEvent.setup().keyboard(' ')
    expect(screen.getByRole('dialog')).toBeInTheDocument()
  })

  it('shows 12 months and highlights the selected one only in the selected year', async () => {
    render(<Harness start={{ year: 2026, month: 3 }} />)
    const typist = userEvent.setup()
    await typist.click(screen.getByRole('button', { name: '2026년 3월' }))
    const months = screen.getAllByRole('button', { name: /^\d+월$/ })
    expect(months.map((m) => m.textContent)).toEqual(Array.from({ length: 12 }, (_, i) => `${i + 1}월`))
    expect(screen.getByRole('button', { name: '3월' })).toHaveAttribute('aria-current', 'date')
    await typist.click(screen.getByRole('button', { name: '이전 해' }))
    expect(screen.getByText('2025년')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: '3월' })).not.toHaveAttribute('aria-current')
    await typist.click(screen.getByRole('button', { name: '다음 해' }))
    expect(screen.getByRole('button', { name: '3월' })).toHaveAttribute('aria-current', 'date')
  })

  it('picking a month sets the year and month shown in the dropdown and closes it', async () => {
    render(<Harness start={{ year: 2026, month: 3 }} />)
    const typist = userEvent.setup()
    await typist.click(screen.getByRole('button', { name: '2026년 3월' }))
    await typist.click(screen.getByRole('button', { name: '이전 해' }))
    await typist.click(screen.getByRole('button', { name: '7월' }))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: '2025년 7월' })).toHaveFocus()
  })

  it('closes on a mouse press outside, and not on one inside', async () => {
    render(<Harness start={{ year: 2026, month: 3 }} />)
    await userEvent.setup().click(screen.getByRole('button', { name: '2026년 3월' }))
    fireEvent.mouseDown(screen.getByRole('button', { name: '다음 해' }))
    expect(screen.getByRole('dialog')).toBeInTheDocument()
    fireEvent.mouseDown(screen.getByText('outside'))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
  })
})
