import { useState } from 'react'
import { useDropdown } from '../../lib/use-dropdown.ts'
import { highlightedMonth, type Period, periodLabel, stepMonth } from './period.ts'

const months = Array.from({ length: 12 }, (_, index) => index + 1)

export function MonthNavigator({ period, onChange }: { period: Period; onChange(period: Period): void }) {
  const { open, setOpen, close, container, opener, panel } = useDropdown<HTMLElement, HTMLDivElement>()
  const [shownYear, setShownYear] = useState(period.year)

  const toggle = () => {
    setShownYear(period.year)
    setOpen((wasOpen) => !wasOpen)
  }
  const pick = (month: number) => {
    onChange({ year: shownYear, month })
    close(true)
  }
  const highlighted = highlightedMonth(shownYear, period)

  return (
    <nav className="month-nav" ref={container} aria-label="조회 기간">
      <button
        type="button"
        className="month-step"
        aria-label="이전 달"
        onClick={() => onChange(stepMonth(period, -1))}
      >
        ‹
      </button>
      <button
        type="button"
        ref={opener}
        className="month-label"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={toggle}
      >
        {periodLabel(period)}
      </button>
      <button
        type="button"
        className="month-step"
        aria-label="다음 달"
        onClick={() => onChange(stepMonth(period, 1))}
      >
        ›
      </button>
      {open && (
        <div className="month-picker" role="dialog" aria-label="연도와 월 선택" ref={panel}>
          <div className="year-stepper">
            <button type="button" aria-label="이전 해" onClick={() => setShownYear((year) => year - 1)}>
              ‹
            </button>
            <span aria-live="polite">{shownYear}년</span>
            <button type="button" aria-label="다음 해" onClick={() => setShownYear((year) => year + 1)}>
              ›
            </button>
          </div>
          <div className="month-grid">
            {months.map((month) => (
              <button
                type="button"
                key={month}
                className={month === highlighted ? 'month is-selected' : 'month'}
                aria-current={month === highlighted ? 'date' : undefined}
                onClick={() => pick(month)}
              >
                {month}월
              </button>
            ))}
          </div>
        </div>
      )}
    </nav>
  )
}
