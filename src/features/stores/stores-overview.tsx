// The stores overview: one row per store the user may see (a card on phones), the busiest question
// first: is every store all right today? Each row: thumbnail and name; today's sales and number of
// sales up to now, against the usual (the same weekday of the previous 4 weeks up to the same time);
// the month so far against the month before up to the same day; the last sale. A total row for all
// stores on top. A store that is unusually quiet is marked and sorted first. Each row opens that
// store's sales of the month it shows (this month, UTC).
//
// The figures come from the server's overview of every store when it offers the call (one small answer,
// followed live by one held call: overview-live.ts, decision 110), and otherwise, from any other
// provider, from every store's year computed here by the same rules (src/figures/): the same figures.
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useCallback, useSyncExternalStore } from 'react'
import type { Store } from '../../../contract/api.ts'
import { dayAndTime, failedRefreshNote, salesCount, timeOfDay, won } from '../../../domain/format.ts'
import { figuresAt } from '../../../domain/overview-clock.ts'
import { quietStoreText } from '../../../domain/quiet.ts'
import { rowFigures, storeFigures } from '../../../domain/store-overview.ts'
import { imageUrl } from '../../config.ts'
import { cachedYearFigures } from '../../figures/cached-year-figures.ts'
import { now as clockNow, currentPeriod } from '../../figures/clock.ts'
import { figuresStatus, useYearFigures, type YearFigures } from '../../figures/year-figures.ts'
import { Change } from '../../lib/change.tsx'
import { useDocumentTitle } from '../../lib/document-title.ts'
import { useOnline } from '../../lib/online.ts'
import { useStoreStore } from '../../lib/session-state.ts'
import { useMinuteTick } from '../../lib/use-minute-tick.ts'
import { overviewQuery, useLiveOverview } from './overview-live.ts'

/**
 * A store's figures of this year and their status (figures/year-figures.ts): `offline` in a row is that
 * store's fetch getting no answer (or the device being offline); `refreshFailed` figures may be out of
 * date, and the row says so, as the sales screen does.
 */
interface Row extends YearFigures {
  store: Store
}

/**
 * Keeps one store's figures fetched (and refetched like the sales screen's), with the sales screen's
 * hook: this year's, and last year's once this year's are in (early January's comparisons and the
 * quiet rule's history). Renders nothing: the overview reads the figures from the cache, all stores
 * at once, by the same rule.
 */
function KeepFetched({ storeId, year }: { storeId: number; year: number }) {
  useYearFigures(storeId, year)
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
  const rows = stores.map((store) => ({ store, ...cachedYearFigures(client, store.id, year, online) }))
  return { rows, offline: !online || (rows.length > 0 && rows.every((row) => row.status === 'offline')) }
}

export function StoresOverview() {
  useDocumentTitle('전체 매장')
  const stores = useStoreStore((state) => state.stores)
  // Today's figures and the quiet warnings move on while the overview stays open.
  useMinuteTick()
  // One reading of the clock for the whole render: the rows, the totals and the links agree.
  const now = clockNow()
  const { year, month } = currentPeriod(now)
  const fromYears = useRows(stores, year)
  const online = useOnline()
  const server = useQuery(overviewQuery)
  const answer = server.data && 'stores' in server.data ? server.data : undefined
  // No such call (another provider): every store's year, as before.
  const absent = server.data !== undefined && answer === undefined
  useLiveOverview(answer !== undefined)
  const serverStatus = figuresStatus(server, answer !== undefined, online)
  const offline = absent ? fromYears.offline : serverStatus === 'offline'

  const figures = absent
    ? fromYears.rows.map((row) => {
        // The same two steps as the server's: the store's figures from its buckets, then the row's.
        const figures = row.buckets && storeFigures(row.buckets, row.previous, now)
        return {
          store: row.store,
          status: row.status,
          fetchedAt: row.fetchedAt,
          ...(figures
            ? rowFigures(figures, now, row.status === 'current')
            : { today: null, monthSoFar: null, quiet: null }),
        }
      })
    : stores.map((store) => {
        const kept = answer?.stores.find((row) => row.id === store.id)
        // Moved by the clock here, as the server moves them (decision 237), once its stream sent the clock.
        const figures = kept?.clock ? figuresAt(kept, kept.clock, now.getTime()) : kept
        return {
          store,
          // A store the answer does not hold yet (it came before the profile did) is on its way.
          status: figures || !answer ? serverStatus : ('loading' as const),
          fetchedAt: figures ? server.dataUpdatedAt : undefined,
          ...(figures
            ? rowFigures(figures, now, serverStatus === 'current')
            : { today: null, monthSoFar: null, quiet: null }),
        }
      })
  // Quiet stores first; otherwise the stores' own order.
  const sorted = [...figures].sort((a, b) => Number(Boolean(b.quiet)) - Number(Boolean(a.quiet)))
  const shown = figures.filter((row) => row.today && row.monthSoFar)
  const total = {
    todaySum: shown.reduce((sum, row) => sum + (row.today?.sum ?? 0), 0),
    todayCount: shown.reduce((sum, row) => sum + (row.today?.count ?? 0), 0),
    monthSum: shown.reduce((sum, row) => sum + (row.monthSoFar?.sum ?? 0), 0),
  }
  const money = shown.length === 0 || shown.some((row) => row.today?.sum !== undefined)
  const oldest = Math.min(...figures.flatMap((row) => (row.fetchedAt === undefined ? [] : [row.fetchedAt])))
  // Online, the totals say when they are not all the latest: kept figures of a store that did not
  // answer or whose refresh failed are added in, and a store with no figures at all is left out.
  // (Offline, the page's notice says it for every figure.)
  const totalNote = offline
    ? []
    : [
        [shown.filter((row) => row.status !== 'current').length, '이전 매출로 합산'] as const,
        [
          figures.filter((row) => !row.today && (row.status === 'failed' || row.status === 'offline')).length,
          '합계에서 빠짐',
        ] as const,
        // The owner hides those stores' won amounts from the user (docs/product.md §15): counts only.
        [shown.filter((row) => row.today?.sum === undefined).length, '금액 제외'] as const,
      ].flatMap(([stores, what]) => (stores > 0 ? [`매장 ${stores}곳은 ${what}`] : []))

  return (
    <main className="stores">
      {absent && stores.map((store) => <KeepFetched key={store.id} storeId={store.id} year={year} />)}
      <h1 className="stores-title">전체 매장</h1>
      {offline && Number.isFinite(oldest) && (
        <p className="offline-notice" role="status">
          오프라인 · {dayAndTime(oldest)} 기준
        </p>
      )}
      <section className="stores-total" aria-label="전체 매장 합계">
        <p>
          <span className="stores-label">오늘 합계</span>{' '}
          {money && (
            <>
              <strong data-testid="total-today">{won(total.todaySum)}</strong> ·{' '}
            </>
          )}
          {salesCount(total.todayCount)}
        </p>
        {money && (
          <p>
            <span className="stores-label">{month}월 합계</span>{' '}
            <strong data-testid="total-month">{won(total.monthSum)}</strong>
          </p>
        )}
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
              {row.status === 'offline' && !offline && row.fetchedAt !== undefined && (
                <span className="store-row-note">연결 안 됨 · {dayAndTime(row.fetchedAt)} 기준</span>
              )}
              {row.status === 'refreshFailed' && row.fetchedAt !== undefined && (
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
                    {row.today.sum !== undefined && (
                      <>
                        <strong data-testid="store-today">{won(row.today.sum)}</strong> ·{' '}
                      </>
                    )}
                    {salesCount(row.today.count)}{' '}
                    <Change ratio={row.today.change} against="평소 같은 시각보다" digits={0} />
                  </span>
                  <span>
                    <span className="stores-label">{month}월</span>{' '}
                    <strong data-testid="store-month">
                      {row.monthSoFar.sum === undefined
                        ? salesCount(row.monthSoFar.count)
                        : won(row.monthSoFar.sum)}
                    </strong>{' '}
                    <Change ratio={row.monthSoFar.change} against="지난달 같은 기간보다" digits={0} />
                  </span>
                  <span>
                    <span className="stores-label">마지막 결제</span>{' '}
                    {row.today.lastSaleAt === null ? '—' : timeOfDay(row.today.lastSaleAt)}
                  </span>
                </span>
              ) : row.status === 'failed' ? (
                <span className="store-row-figures">이 매장의 매출을 불러오지 못했습니다</span>
              ) : row.status === 'offline' ? (
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
