// The stores overview: one row per store the user may see (a card on phones), the busiest question
// first: is every store all right today? Each row: thumbnail and name; today's sales and number of
// sales up to now, against the usual (the same weekday of the previous 4 weeks up to the same time);
// the month so far against the month before up to the same day; the last sale. A total row for all
// stores on top. A store that is unusually quiet is marked and sorted first. Each row opens that
// store's sales of the month it shows (this month, UTC).
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useCallback, useSyncExternalStore } from 'react'
import type { Store } from '../../../contract/api.ts'
import { imageUrl } from '../../config.ts'
import { now as clockNow, currentPeriod } from '../../figures/clock.ts'
import { OfflineError } from '../../lib/api.ts'
import { Change } from '../../lib/change.tsx'
import { monthComparison, todayComparison } from '../../lib/comparisons.ts'
import { useDocumentTitle } from '../../lib/document-title.ts'
import { dayAndTime, failedRefreshNote, salesCount, timeOfDay, won } from '../../lib/format.ts'
import { useOnline } from '../../lib/online.ts'
import { quietStoreOf, quietStoreText } from '../../lib/quiet-store.ts'
import { useStoreStore } from '../../lib/session-state.ts'
import { type Usage, usageKeys, usageQuery } from '../../lib/usage.ts'
import { useMinuteTick } from '../../lib/use-minute-tick.ts'
import type { Buckets } from '../../workers/buckets.ts'

interface Row {
  store: Store
  buckets: Buckets | undefined
  previous: Buckets | undefined
  failed: boolean
  /** Its latest fetch got no answer (or the device is offline): its figures, if any, are the kept ones. */
  unanswered: boolean
  /**
   * Its figures are kept from an earlier fetch, and its latest fetch was answered with an error (a
   * server error, a refusal): they may be out of date, and the row says so, as the sales screen does.
   */
  refreshFailed: boolean
  /** Its figures are the server's latest: no failed or unanswered fetch since. */
  current: boolean
  fetchedAt: number | undefined
}

/**
 * Keeps one store's figures fetched (and refetched like the sales screen's): this year's, and last
 * year's once this year's are in (early January's comparisons and the quiet rule's history). Renders
 * nothing: the overview reads the figures from the cache, all stores at once.
 */
function KeepFetched({ storeId, year }: { storeId: number; year: number }) {
  const current = useQuery(usageQuery(storeId, year))
  useQuery({ ...usageQuery(storeId, year - 1), enabled: current.data !== undefined })
  return null
}

/** Re-renders whenever a query of the cache changes. */
function useCacheChanges(client: QueryClient) {
  const subscribe = useCallback((changed: () => void) => client.getQueryCache().subscribe(changed), [client])
  const snapshot = useCallback(
    () =>
      client
        .getQueryCache()
        .getAll()
        .map(
          (query) =>
            `${query.queryHash}:${query.state.dataUpdatedAt}:${query.state.status}:${query.state.fetchFailureCount}`,
        )
        .join(),
    [client],
  )
  useSyncExternalStore(subscribe, snapshot)
}

/**
 * The rows, and whether the device is offline: as it says, or as every store's fetch getting no answer
 * shows. One store not answering while others do is that store's trouble, said in its own row.
 */
function useRows(stores: Store[], year: number): { rows: Row[]; offline: boolean } {
  const online = useOnline()
  const client = useQueryClient()
  useCacheChanges(client)
  const rows = stores.map((store) => {
    const state = client.getQueryState<Usage>(usageKeys.year(store.id, year))
    const buckets = state?.data?.buckets
    const unanswered = !online || state?.fetchFailureReason instanceof OfflineError
    return {
      store,
      buckets,
      previous: client.getQueryData<Usage>(usageKeys.year(store.id, year - 1))?.buckets,
      failed: !buckets && state?.status === 'error' && !unanswered,
      unanswered,
      refreshFailed: Boolean(buckets) && state?.status === 'error' && !unanswered,
      current: !unanswered && state?.status !== 'error',
      fetchedAt: buckets ? state?.dataUpdatedAt : undefined,
    }
  })
  return { rows, offline: !online || (rows.length > 0 && rows.every((row) => row.unanswered)) }
}

export function StoresOverview() {
  useDocumentTitle('전체 매장')
  const stores = useStoreStore((state) => state.stores)
  // Today's figures and the quiet warnings move on while the overview stays open.
  useMinuteTick()
  // One reading of the clock for the whole render: the rows, the totals and the links agree.
  const now = clockNow()
  const { year, month } = currentPeriod(now)
  const { rows, offline } = useRows(stores, year)

  const figures = rows.map((row) => {
    const today = row.buckets ? todayComparison(row.buckets, row.previous, now) : null
    const monthSoFar = row.buckets
      ? monthComparison(row.buckets, month, month === 1 ? row.previous : row.buckets, now)
      : null
    const quiet = row.buckets ? quietStoreOf(row.buckets, row.previous, now, row.current) : null
    return { ...row, today, monthSoFar, quiet }
  })
  // Quiet stores first; otherwise the stores' own order.
  const sorted = [...figures].sort((a, b) => Number(Boolean(b.quiet)) - Number(Boolean(a.quiet)))
  const shown = figures.filter((row) => row.today && row.monthSoFar)
  const total = {
    todaySum: shown.reduce((sum, row) => sum + (row.today?.sum ?? 0), 0),
    todayCount: shown.reduce((sum, row) => sum + (row.today?.count ?? 0), 0),
    monthSum: shown.reduce((sum, row) => sum + (row.monthSoFar?.sum ?? 0), 0),
  }
  const oldest = Math.min(...figures.flatMap((row) => (row.fetchedAt === undefined ? [] : [row.fetchedAt])))
  // Online, the totals say when they are not all the latest: kept figures of a store that did not
  // answer or whose refresh failed are added in, and a store with no figures at all is left out.
  // (Offline, the page's notice says it for every figure.)
  const totalNote = offline
    ? []
    : [
        [shown.filter((row) => !row.current).length, '이전 매출로 합산'] as const,
        [
          figures.filter((row) => !row.buckets && (row.failed || row.unanswered)).length,
          '합계에서 빠짐',
        ] as const,
      ].flatMap(([stores, what]) => (stores > 0 ? [`매장 ${stores}곳은 ${what}`] : []))

  return (
    <main className="stores">
      {stores.map((store) => (
        <KeepFetched key={store.id} storeId={store.id} year={year} />
      ))}
      <h1 className="stores-title">전체 매장</h1>
      {offline && Number.isFinite(oldest) && (
        <p className="offline-notice" role="status">
          오프라인 · {dayAndTime(oldest)} 기준
        </p>
      )}
      <section className="stores-total" aria-label="전체 매장 합계">
        <p>
          <span className="stores-label">오늘 합계</span>{' '}
          <strong data-testid="total-today">{won(total.todaySum)}</strong> · {salesCount(total.todayCount)}
        </p>
        <p>
          <span className="stores-label">{month}월 합계</span>{' '}
          <strong data-testid="total-month">{won(total.monthSum)}</strong>
        </p>
        {totalNote.length > 0 && (
          <p className="stores-total-note" data-testid="total-note">
            {totalNote.join(' · ')}
          </p>
        )}
      </section>
      <ul className="stores-list" aria-label="매장별 오늘 매출">
        {sorted.map((row) => (
          <li key={row.store.id} className={row.quiet ? 'store-row is-quiet' : 'store-row'}>
            <Link
              to="/"
              search={{ store: row.store.id, year, month }}
              className="store-row-link"
              data-testid={`store-row-${row.store.id}`}
            >
              <span className="store-row-name">
                {row.store.images[0] ? (
                  <img
                    className="store-thumb"
                    src={imageUrl(row.store.images[0])}
                    alt=""
                    width={32}
                    height={32}
                  />
                ) : (
                  <span className="store-thumb store-thumb-initial" aria-hidden="true">
                    {row.store.name.slice(0, 1)}
                  </span>
                )}
                <span>{row.store.name}</span>
              </span>
              {row.unanswered && !offline && row.fetchedAt !== undefined && (
                <span className="store-row-note">연결 안 됨 · {dayAndTime(row.fetchedAt)} 기준</span>
              )}
              {row.refreshFailed && row.fetchedAt !== undefined && (
                <span className="store-row-note">{failedRefreshNote(row.fetchedAt)}</span>
              )}
              {row.quiet && (
                <span className="store-row-quiet" role="status">
                  {quietStoreText(row.quiet)}
                </span>
              )}
              {row.today && row.monthSoFar ? (
                <span className="store-row-figures">
                  <span>
                    <span className="stores-label">오늘</span>{' '}
                    <strong data-testid="store-today">{won(row.today.sum)}</strong> ·{' '}
                    {salesCount(row.today.count)}{' '}
                    <Change ratio={row.today.change} against="평소 같은 시각보다" digits={0} />
                  </span>
                  <span>
                    <span className="stores-label">{month}월</span>{' '}
                    <strong data-testid="store-month">{won(row.monthSoFar.sum)}</strong>{' '}
                    <Change ratio={row.monthSoFar.change} against="지난달 같은 기간보다" digits={0} />
                  </span>
                  <span>
                    <span className="stores-label">마지막 결제</span>{' '}
                    {row.today.lastSaleAt === null ? '—' : timeOfDay(row.today.lastSaleAt)}
                  </span>
                </span>
              ) : row.failed ? (
                <span className="store-row-figures">이 매장의 매출을 불러오지 못했습니다</span>
              ) : row.unanswered ? (
                <span className="store-row-figures">
                  {offline ? '이 기기에 저장된 매출이 없습니다' : '연결되지 않아 불러오지 못했습니다'}
                </span>
              ) : (
                <span className="store-row-figures" aria-busy="true">
                  매출을 불러오는 중…
                </span>
              )}
            </Link>
          </li>
        ))}
      </ul>
    </main>
  )
}
