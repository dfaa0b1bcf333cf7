import { useDocumentTitle } from '../../lib/document-title.ts'
import { type Period, periodLabel } from './period.ts'

/**
 * The screen's level-one heading, for screen readers and the headings list, and its title: which store
 * and month the figures below are of. Sighted people read the same from the header and the month
 * navigator.
 */
export function SalesHeading({ storeName, period }: { storeName: string | undefined; period: Period }) {
  const heading = `${storeName ? `${storeName} ` : ''}${periodLabel(period)} 매출`
  useDocumentTitle(heading)
  return <h1 className="visually-hidden">{heading}</h1>
}
