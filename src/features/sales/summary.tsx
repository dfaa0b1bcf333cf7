// The two summary boxes: each keeps its total as the headline and adds a line of counts, average sale
// and the change against the comparable earlier period; the month box of the current month adds the
// month-end estimate and today's line.

import { salesCount, timeOfDay, won } from '../../../domain/format.ts'
import { Change } from '../../lib/change.tsx'

export interface PeriodFigures {
  sum: number
  count: number
  /** sum / count; null without sales. */
  average: number | null
  /** The comparable earlier period's sum; null when it has no data (or is not known offline). */
  previousSum: number | null
  /** (sum − previousSum) / previousSum; null when there is nothing to compare with. */
  change: number | null
}

export interface TodayFigures {
  sum: number
  count: number
  usualSum: number | null
  change: number | null
  lastSaleAt: number | null
}

function FiguresLine({ figures, against }: { figures: PeriodFigures; against: string }) {
  return (
    <p className="summary-line">
      <span>{salesCount(figures.count)}</span>
      {figures.average !== null && <span>평균 {won(Math.round(figures.average))}</span>}
      <Change ratio={figures.change} against={against} />
    </p>
  )
}

/** `figures` is undefined while only the leading sums are there (the counts and comparisons need the records). */
export function YearBox({
  year,
  total,
  figures,
}: {
  year: number
  total: number
  figures?: PeriodFigures | undefined
}) {
  return (
    <div className="summary-box">
      <h2>{year}년 매출</h2>
      <p className="summary-total" data-testid="year-total">
        {won(total)}
      </p>
      {figures && <FiguresLine figures={figures} against="작년 같은 기간보다" />}
    </div>
  )
}

export function MonthBox({
  month,
  total,
  figures,
  projection,
  today,
}: {
  month: number
  total: number
  figures?: PeriodFigures | undefined
  /** The month-end estimate, for the current month only. */
  projection: number | null | undefined
  /** Today's line, for the current month only. */
  today: TodayFigures | undefined
}) {
  return (
    <div className="summary-box">
      <h2>{month}월 매출</h2>
      <p className="summary-total" data-testid="month-total">
        {won(total)}
      </p>
      {figures && <FiguresLine figures={figures} against="지난달 같은 기간보다" />}
      {projection != null && (
        <p className="summary-line" data-testid="month-projection">
          <span>
            <abbr title="요일별 최근 8주 평균으로 어림한 월말 매출">예상</abbr> {won(Math.round(projection))}
          </span>
        </p>
      )}
      {today && (
        <p className="summary-line summary-today" data-testid="today">
          <span>
            오늘 {won(today.sum)} · {salesCount(today.count)}
          </span>
          <span>
            평소 같은 시각 대비{' '}
            <Change ratio={today.change} against="평소 같은 요일 같은 시각보다" digits={0} />
          </span>
          {today.lastSaleAt !== null && <span>마지막 결제 {timeOfDay(today.lastSaleAt)}</span>}
        </p>
      )}
    </div>
  )
}
