import { useStoreStore } from '../../lib/session.ts'
import { type Period, periodLabel } from './period.ts'

/**
 * The screen's level-one heading, for screen readers and the headings list: which store and month the
 * figures below are of. Sighted people read the same from the header and the month navigator.
 */
export function SalesHeading({ period }: { period: Period }) {
  const store = useStoreStore((state) => state.store)
  return (
    <h1 className="visually-hidden">
      {store ? `${store.name} ` : ''}
      {periodLabel(period)} 매출
    </h1>
  )
}
