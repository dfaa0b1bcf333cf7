// The sales screen below the header: month navigator, the year and month totals with their
// comparisons, the two charts, the hours of the month, and the export.
import { useEffect, useMemo } from 'react'
import type { Buckets } from '../../../domain/buckets.ts'
import { daysInMonth } from '../../../domain/calendar.ts'
import { compactNumber, dayAndTime, failedRefreshNote, won } from '../../../domain/format.ts'
import { busiestHours, deviceOffsetMinutes, hourGrid } from '../../../domain/hour-grid.ts'
import { monthBefore, monthComparison, yearComparison } from '../../../domain/periods.ts'
import { quietStoreOf, quietStoreText } from '../../../domain/quiet.ts'
import { monthProjection, todayComparison } from '../../../domain/usual.ts'
import { LineChart } from '../../charts/line-chart.tsx'
import { now as clockNow, currentPeriod } from '../../figures/clock.ts'
import { daySeries, monthSeries } from '../../figures/series.ts'
import { useYearFigures } from '../../figures/year-figures.ts'
import { keepTotals } from '../../lib/kept-totals.ts'
import { useStoreStore } from '../../lib/session-state.ts'
import { useMinuteTick } from '../../lib/use-minute-tick.ts'
import { dayStartNote } from './day-start.ts'
import { HoursSection } from './hours-section.tsx'
import { MachinesSlot } from './machines-slot.tsx'
import { MoneyHidden } from './money-hidden.tsx'
import { MonthNavigator } from './month-navigator.tsx'
import type { Period } from './period.ts'
import { SalesHeading } from './sales-heading.tsx'
import { MonthBox, YearBox } from './summary.tsx'

const monthLabels = Array.from({ length: 12 }, (_, index) => `${index + 1}월`)
const dayLabels = (year: number, month: number) =>
  Array.from({ length: daysInMonth(year, month) }, (_, index) => `${index + 1}일`)

/**
 * What the screen shows: the buckets of the selected store and year, and only those (figures/year-figures.ts).
 * Figures of another store or year are never shown in their place: while they load there is a loading
 * state, and when they cannot be fetched the store's kept figures show with their time, or an honest
 * empty state. "Figures stay as they were" holds for the same store and year: a failed refetch keeps
 * them. Offline, the figures kept on the device show with the time they were fetched; a period never
 * fetched is "not available". A failed usage fetch is logged to the console.
 */
function useShownBuckets(storeId: number, period: Period) {
  const shown = useYearFigures(storeId, period.year)
  const { error } = shown
  useEffect(() => {
    // (Refused, 403: the request's own hook reads the profile again, features/auth/store-lost.ts.)
    if (error) console.error(error)
  }, [error])
  return shown
}

type PageProps = { storeId: number; period?: Period | undefined; onPeriodChange(period: Period): void }

/**
 * The sales of the store and period the route selected (none: this month, whichever it is now); of a
 * store whose won amounts the owner hides from the user (docs/product.md §15), its machines only.
 */
export function SalesPage(props: PageProps) {
  // Today's line, the charts' last day and the quiet notice move on while the screen stays open, and so
  // does the month of a screen that names none.
  useMinuteTick()
  // One reading of the clock for the whole render, handed down: every part of the screen agrees on now.
  const now = clockNow()
  const period = props.period ?? currentPeriod(now)
  const store = useStoreStore((state) => state.stores.find((store) => store.id === props.storeId))
  if (store?.showsMoney !== false)
    return <StoreSales {...props} storeName={store?.name} now={now} period={period} />
  return <MoneyHidden store={store} period={period} now={now} onPeriodChange={props.onPeriodChange} />
}

function StoreSales({
  storeId,
  period,
  onPeriodChange,
  storeName,
  now,
}: PageProps & { period: Period; storeName: string | undefined; now: Date }) {
  const shown = useShownBuckets(storeId, period)
  // The totals shown, kept for the next visit to paint at once (lib/kept-totals.ts).
  const { year, month } = period
  const yearTotal = shown.buckets?.total
  const monthTotal = shown.buckets?.months[month - 1]
  const { fetchedAt } = shown
  useEffect(() => {
    if (yearTotal === undefined || monthTotal === undefined || fetchedAt === undefined || !storeName) return
    keepTotals({
      storeId,
      year,
      month,
      storeName,
      yearLabel: `${year}년 매출`,
      yearTotal: won(yearTotal),
      monthLabel: `${month}월 매출`,
      monthTotal: won(monthTotal),
      asOf: `${dayAndTime(fetchedAt)} 기준`,
    })
  }, [storeId, year, month, storeName, yearTotal, monthTotal, fetchedAt])
  return (
    <main className="sales">
      <SalesHeading storeName={storeName} period={period} />
      <MonthNavigator period={period} onChange={onPeriodChange} />
      {shown.fetchedAt !== undefined && (shown.status === 'offline' || shown.status === 'refreshFailed') && (
        <p className="offline-notice" role="status">
          {shown.status === 'offline'
            ? `오프라인 · ${dayAndTime(shown.fetchedAt)} 기준`
            : failedRefreshNote(shown.fetchedAt)}
        </p>
      )}
      {shown.buckets && (
        <QuietNotice
          buckets={shown.buckets}
          previous={shown.previous}
          current={shown.status === 'current'}
          now={now}
        />
      )}
      {shown.buckets || (shown.leading && shown.status !== 'offline') ? (
        // Without buckets, the leading sums of a version 2 answer (decision 116): totals and charts now,
        // the rest when the records are complete, or an honest failure if they never come.
        <Figures
          storeId={storeId}
          buckets={(shown.buckets ?? shown.leading) as Buckets}
          previous={shown.previous}
          period={period}
          storeName={storeName}
          now={now}
          leading={!shown.buckets && (shown.status === 'failed' ? shown.retry : true)}
        />
      ) : shown.status === 'offline' ? (
        <div className="sales-unavailable" role="status">
          <h2>오프라인에서는 볼 수 없는 기간입니다</h2>
          <p>
            {period.year}년 매출은 이 기기에 저장되어 있지 않습니다. 인터넷에 연결되면 자동으로 불러옵니다.
          </p>
        </div>
      ) : shown.status === 'failed' ? (
        <div className="sales-unavailable" role="status">
          <h2>이 매장의 {period.year}년 매출을 불러오지 못했습니다</h2>
          <button type="button" className="retry-button" onClick={shown.retry}>
            다시 시도
          </button>
        </div>
      ) : (
        <div className="sales-figures is-stale" aria-busy="true">
          <p className="sales-notice" role="status">
            매출을 불러오는 중…
          </p>
        </div>
      )}
    </main>
  )
}

/** The store has gone unusually quiet today (domain/quiet.ts): said above its figures, from current ones only. */
function QuietNotice({
  buckets,
  previous,
  current,
  now,
}: {
  buckets: Buckets
  previous: Buckets | undefined
  current: boolean
  now: Date
}) {
  const quiet = quietStoreOf(buckets, previous, now, current)
  return quiet ? (
    <p className="quiet-notice" role="status">
      {quietStoreText(quiet)}
    </p>
  ) : null
}

function Figures({
  storeId,
  buckets,
  previous,
  period,
  storeName,
  now,
  leading,
}: {
  storeId: number
  buckets: Buckets
  previous: Buckets | undefined
  period: Period
  storeName: string | undefined
  now: Date
  /**
   * Set when `buckets` are only the leading sums: the rest of the screen waits for the records (`true`),
   * or failed (the retry).
   */
  leading: boolean | (() => void)
}) {
  const { year, month } = period
  const today = currentPeriod(now)
  const isCurrentMonth = year === today.year && month === today.month
  const labels = useMemo(() => dayLabels(year, month), [year, month])
  // The month before, from these buckets or, for January, last year's.
  const before = monthBefore(buckets, previous, month)
  const days = daySeries(buckets, previous, period, now)
  const months = monthSeries(buckets, previous, year, now)
  const monthTotal = buckets.months[month - 1] ?? 0
  const whole = !leading
  // The month in progress on the year's chart, dashed to its month-end estimate (with the whole figures).
  const inProgress =
    months.inProgress === null
      ? undefined
      : {
          index: months.inProgress,
          estimate: whole ? monthProjection(buckets, previous, months.inProgress + 1, now) : null,
        }
  const grid = hourGrid(buckets, month, deviceOffsetMinutes(now))

  async function download(wholeYear: boolean) {
    const { csvFileName, downloadCsv, periodCsv } = await import('./export-csv.ts')
    downloadCsv(
      csvFileName(storeName ?? '매장', period, wholeYear),
      // Rows up to the moment the owner asks for the file.
      periodCsv(buckets, period, wholeYear, clockNow()),
    )
  }

  return (
    <div className="sales-figures" aria-busy={!whole}>
      <section className="summary" aria-label="매출 합계">
        <YearBox
          year={year}
          total={buckets.total}
          figures={whole ? yearComparison(buckets, previous, now) : undefined}
        />
        <MonthBox
          month={month}
          total={monthTotal}
          figures={whole ? monthComparison(buckets, month, before.buckets, now) : undefined}
          projection={whole && isCurrentMonth ? monthProjection(buckets, previous, month, now) : undefined}
          today={whole && isCurrentMonth ? (todayComparison(buckets, previous, now) ?? undefined) : undefined}
        />
      </section>
      <LineChart
        title="이번 달 매출"
        labels={labels}
        values={days.values}
        valuesLabel={`${month}월`}
        counts={days.counts}
        comparison={{ label: `${before.month}월`, values: days.earlier }}
        xLegend="날짜"
        yLegend="매출(원)"
        formatValue={won}
        formatTick={compactNumber}
        summary={`${year}년 ${month}월 합계 ${won(monthTotal)}`}
      />
      <LineChart
        title="올해 매출"
        labels={monthLabels}
        values={months.values}
        valuesLabel={`${year}년`}
        counts={months.counts}
        comparison={{ label: `${year - 1}년`, values: months.earlier }}
        inProgress={inProgress}
        xLegend="월"
        yLegend="매출(원)"
        formatValue={won}
        formatTick={compactNumber}
        summary={`${year}년 합계 ${won(buckets.total)}`}
      />
      {whole ? (
        <>
          <HoursSection month={month} grid={grid} busiest={busiestHours(grid)} formatValue={won} />
          <MachinesSlot {...{ storeId, year, month, monthTotal, now, isCurrentMonth }} />
          <div className="sales-tools">
            <p className="day-start-note">{dayStartNote(deviceOffsetMinutes(now))}</p>
            <div className="export-buttons">
              <button type="button" className="export-button" onClick={() => void download(false)}>
                {month}월 CSV 내려받기
              </button>
              <button type="button" className="export-button" onClick={() => void download(true)}>
                {year}년 CSV 내려받기
              </button>
            </div>
          </div>
        </>
      ) : (
        <p className="sales-notice" role="status" data-testid="rest-status">
          {typeof leading === 'function' ? (
            <>
              나머지 매출을 불러오지 못했습니다
              <button type="button" className="retry-button" onClick={leading}>
                다시 시도
              </button>
            </>
          ) : (
            '나머지 매출을 불러오는 중…'
          )}
        </p>
      )}
    </div>
  )
}
