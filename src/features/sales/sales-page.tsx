// The sales screen below the header: month navigator, the year and month totals, and the two charts.
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useEffect, useMemo, useRef } from 'react'
import { LineChart } from '../../charts/line-chart.tsx'
import { OfflineError } from '../../lib/api.ts'
import { compactNumber, dayAndTime, won } from '../../lib/format.ts'
import { useOnline } from '../../lib/online.ts'
import { useStoreStore } from '../../lib/session.ts'
import { type Buckets, daysInMonth, emptyBuckets } from '../../workers/buckets.ts'
import { Footer } from './footer.tsx'
import { MonthNavigator } from './month-navigator.tsx'
import type { Period } from './period.ts'
import { SalesHeading } from './sales-heading.tsx'
import { usageQuery } from './usage-query.ts'

const monthLabels = Array.from({ length: 12 }, (_, index) => `${index + 1}월`)
const dayLabels = (year: number, month: number) =>
  Array.from({ length: daysInMonth(year, month) }, (_, index) => `${index + 1}일`)

/**
 * What the screen shows: the buckets of the selected store and year once they are here. Until then,
 * and when fetching fails, the figures stay as they were (SPEC.md 8), dimmed. Offline, the figures
 * kept on the device show with the time they were fetched; a period never fetched is "not available".
 */
function useShownBuckets(storeId: number, period: Period) {
  const query = useQuery({ ...usageQuery(storeId, period.year), placeholderData: keepPreviousData })
  const online = useOnline()
  const lastGood = useRef<Buckets | undefined>(undefined)
  if (query.data && !query.isPlaceholderData) lastGood.current = query.data
  const current = query.data && !query.isPlaceholderData ? query.data : undefined
  // SPEC.md 8: a failed usage fetch is logged to the console only.
  useEffect(() => {
    if (query.error) console.error(query.error)
  }, [query.error])
  // Offline as the device says, or as a fetch that got no answer shows (it keeps retrying).
  const offline = !online || query.failureReason instanceof OfflineError
  return {
    buckets: current ?? (query.isPlaceholderData ? query.data : lastGood.current),
    current: Boolean(current),
    loading: query.isFetching && !current,
    failed: query.isError && !lastGood.current && !offline,
    offline,
    unavailableOffline: offline && !current,
    fetchedAt: current ? query.dataUpdatedAt : undefined,
  }
}

export function SalesPage({
  period,
  onPeriodChange,
}: {
  period: Period
  onPeriodChange(period: Period): void
}) {
  const store = useStoreStore((state) => state.store)
  if (!store) return null
  return <StoreSales storeId={store.id} period={period} onPeriodChange={onPeriodChange} />
}

function StoreSales({
  storeId,
  period,
  onPeriodChange,
}: {
  storeId: number
  period: Period
  onPeriodChange(period: Period): void
}) {
  const shown = useShownBuckets(storeId, period)
  return (
    <>
      <main className="sales">
        <SalesHeading period={period} />
        <MonthNavigator period={period} onChange={onPeriodChange} />
        {shown.offline && shown.fetchedAt !== undefined && (
          <p className="offline-notice" role="status">
            오프라인 · {dayAndTime(shown.fetchedAt)} 기준
          </p>
        )}
        {shown.unavailableOffline ? (
          <div className="sales-unavailable" role="status">
            <h2>오프라인에서는 볼 수 없는 기간입니다</h2>
            <p>
              {period.year}년 매출은 이 기기에 저장되어 있지 않습니다. 인터넷에 연결되면 자동으로 불러옵니다.
            </p>
          </div>
        ) : (
          <Figures shown={shown} period={period} />
        )}
      </main>
      <Footer />
    </>
  )
}

function Figures({ shown, period }: { shown: ReturnType<typeof useShownBuckets>; period: Period }) {
  const buckets = shown.buckets ?? emptyBuckets(period.year)
  const labels = useMemo(() => dayLabels(period.year, period.month), [period.year, period.month])
  // Previous figures may belong to another year; the day axis always follows the selected month.
  const days = useMemo(
    () => labels.map((_, index) => buckets.days[period.month - 1]?.[index] ?? 0),
    [labels, buckets, period.month],
  )
  const monthTotal = buckets.months[period.month - 1] ?? 0

  return (
    <div className={shown.current ? 'sales-figures' : 'sales-figures is-stale'} aria-busy={shown.loading}>
      {shown.failed && (
        <p className="sales-notice" role="status">
          매출을 불러오지 못했습니다. 잠시 후 다시 시도해 주세요.
        </p>
      )}
      {shown.loading && !shown.buckets && (
        <p className="sales-notice" role="status">
          매출을 불러오는 중…
        </p>
      )}
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
