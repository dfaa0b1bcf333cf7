// A store-year's figures and their status (year-figures.ts, the same rule) as the query cache holds
// them now, for a screen that shows many store-years at once: the stores overview keeps each one
// fetched with useYearFigures and re-renders on the cache's changes. Apart from year-figures.ts so that
// only the overview's chunk carries it.
import type { QueryClient } from '@tanstack/react-query'
import { type YearFigures, yearFigures } from './year-figures.ts'
import { type Usage, usageKeys } from './year-query.ts'

/** A store-year's figures and their status, read from the cache. */
export function cachedYearFigures(
  client: QueryClient,
  storeId: number,
  year: number,
  online: boolean,
): YearFigures {
  const state = client.getQueryState<Usage>(usageKeys.year(storeId, year))
  return yearFigures(
    {
      data: state?.data,
      isError: state?.status === 'error',
      failureReason: state?.fetchFailureReason,
      dataUpdatedAt: state?.dataUpdatedAt,
    },
    client.getQueryData<Usage>(usageKeys.year(storeId, year - 1)),
    online,
  )
}
