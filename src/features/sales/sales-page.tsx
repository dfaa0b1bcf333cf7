// The sales screen below the header: month navigator, the year and month totals, and the two charts.
import { useQuery } from '@tanstack/react-query'
import { useEffect, useMemo } from 'react'
import { LineChart } from '../../charts/line-chart.tsx'
import { OfflineError } from '../../lib/api.ts'
import { compactNumber, dayAndTime, won } from '../../lib/format.ts'
import { useOnline } from '../../lib/online.ts'
import { useStoreStore } from '../../lib/session-state.ts'
import { usageQuery } from '../../lib/usage.ts'
import { type Buckets, daysInMonth } from '../../workers/buckets.ts'
import { MonthNavigator } from './month-navigator.tsx'
import type { Period } from './period.ts'
import { SalesHeading } from './sales-heading.tsx'

const monthLabels = Array.from({ length: 12 }, (_, index) => `${index + 1}월`)
const dayLabels = (year: number, month: number) =>
  Array.from({ length: daysInMonth(year, month) }, (_, index) => `${index + 1}일`)

/**
 * What the screen shows: the buckets of the selected store and year, and only those. Figures of
 * another store or year are never shown in their place: while they load there is a loading state,
 * and when they cannot be fetched the store's kept figures show with their time, or an honest empty
 * state. "Figures stay as they were" holds for the same store and year: a failed refetch
 * keeps them. Offline, the figures kept on the device show with the time they were fetched; a period
 * never fetched is "not available".
 */
function useShownBuckets(storeId: number, period: Period) {
  const query = useQuery(usageQuery(storeId, period.year))
  const online = useOnline()
  // A failed usage fetch is logged to the console.
  useEffect(() => {
    if (query.error) console.error(query.error)
  }, [query.error])
  // Offline as the device says, or as a fetch that got no answer shows (it keeps retrying).
  const offline = !online || query.failureReason instanceof OfflineError
  const buckets = query.data?.buckets
  return {
    buckets,
    offline,
    /** Nothing of this store and year yet, and nothing known to be wrong: it is on its way. */
    loading: !buckets && !query.isError && !offline,
    /** Nothing of this store and year, and fetching failed. */
    failed: !buckets && query.isError && !offline,
    /** This store's and year's figures are shown, but the latest fetch of them failed. */
    refreshFailed: Boolean(buckets) && query.isError && !offline,
    unavailableOffline: offline && !buckets,
    fetchedAt: buckets ? query.dataUpdatedAt : undefined,
    retry: () => void query.refetch(),
  }
}

/** The sales of the store and period the route selected. */
export function SalesPage({
  storeId,
  period,
  onPeriodChange,
}: {
  storeId: number
  period: Period
  onPeriodChange(period: Period): void
}) {
  const shown = useShownBuckets(storeId, period)
  const storeName = useStoreStore((state) => state.stores.find((store) => store.id === storeId)?.name)
  return (
    <main className="sales">
      <SalesHeading storeName={storeName} period={period} />
      <MonthNavigator period={period} onChange={onPeriodChange} />
      {shown.fetchedAt !== undefined && (shown.offline || shown.refreshFailed) && (
        <p className="offline-notice" role="status">
          {shown.offline ? '오프라인' : '새 매출을 불러오지 못했습니다'} · {dayAndTime(shown.fetchedAt)} 기준
        </p>
      )}
      {shown.buckets ? (
        <Figures buckets={shown.buckets} period={period} />
      ) : shown.unavailableOffline ? (
        <div className="sales-unavailable" role="status">
          <h2>오프라인에서는 볼 수 없는 기간입니다</h2>
          <p>
            {period.year}년 매출은 이 기기에 저장되어 있지 않습니다. 인터넷에 연결되면 자동으로 불러옵니다.
          </p>
        </div>
      ) : shown.failed ? (
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

function Figures({ buckets, period }: { buckets: Buckets; period: Period }) {
  const labels = useMemo(() => dayLabels(period.year, period.month), [period.year, period.month])
  const days = useMemo(
    () => labels.map((_, index) => buckets.days[period.month - 1]?.[index] ?? 0),
    [labels, buckets, period.month],
  )
  const monthTotal = buckets.months[period.month - 1] ?? 0

  return (
    <div className="sales-figures" aria-busy={false}>
      <section className="summary" aria-label="매출 합계">
        <div className="summary-box">
          <h2>{period.year}년 매출</h2>
          <p data-testid="year-total">{won(buckets.total)}</p>
        </div>
        <div className="summary-box">
          <h2>{period.month}월 매출</h2>
          <p data-testid="month-total">{won(monthTotal)}</p>
        </div>
      </section>
      <LineChart
        title="이번 달 매출"
        labels={labels}
        values={days}
        xLegend="날짜"
        yLegend="매출(원)"
        formatValue={won}
        formatTick={compactNumber}
        summary={`${period.year}년 ${period.month}월 합계 ${won(monthTotal)}`}
      />
      <LineChart
        title="올해 매출"
        labels={monthLabels}
        values={buckets.months}
        xLegend="월"
        yLegend="매출(원)"
        formatValue={won}
        formatTick={compactNumber}
        summary={`${period.year}년 합계 ${won(buckets.total)}`}
      />
    </div>
  )
}
