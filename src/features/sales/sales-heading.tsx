import { useDocumentTitle } from '../../lib/document-title.ts'
import { useStoreStore } from '../../lib/session.ts'
import { type Period, periodLabel } from './period.ts'

/**
 * The screen's level-one heading, for screen readers and the headings list, and its title: which store
 * and month the figures below are of. Sighted people read the same from the header and the month
 * navigator.
 */
export function SalesHeading({ period }: { period: Period }) {
  const store = useStoreStore((state) => state.store)
  const heading = `${store ? `${store.name} ` : ''}${periodLabel(period)} 매출`
  useDocumentTitle(heading)
  return <h1 className="visually-hidden">{heading}</h1>
}
