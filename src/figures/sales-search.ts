// The sales screen's address, `/?store=2&year=2026&month=11`, read one way: by the route (its
// validateSearch, on what TanStack Router parsed) and by the first painter (on the raw address, parsed
// here as the router parses it), so that the painter paints only what the screen will open
// (tests/web/figures/sales-search.test.ts feeds both the same addresses). The painter inlines this file.
import { currentPeriod, type Period } from './clock.ts'

/** What the route hands the sales screen: the period, and the store when the address names one. */
export interface SalesSearch extends Period {
  store?: number
}

/**
 * The address's store and period as the sales route takes them: year and month that are not both valid
 * are this month (UTC, figures/clock.ts); a store that is not a positive whole number is none.
 */
export function salesSearch(search: { store?: unknown; year?: unknown; month?: unknown }): SalesSearch {
  const store = Number(search.store)
  const year = Number(search.year)
  const month = Number(search.month)
  const validPeriod =
    Number.isInteger(year) &&
    year >= 2000 &&
    year <= 2100 &&
    Number.isInteger(month) &&
    month >= 1 &&
    month <= 12
  return {
    ...(validPeriod ? { year, month } : currentPeriod()),
    ...(Number.isSafeInteger(store) && store > 0 ? { store } : {}),
  }
}

/** Where TanStack Router's default parseSearch tries a value as JSON. */
const jsonStart = /^(?:\s|["[{\d-]|fa|nu|tr)/

/**
 * A value of the raw address as TanStack Router's default parseSearch gives it, as far as the route
 * reads it (as a number): a name given more than once is a list (never a number); a text that looks like
 * JSON is parsed as JSON, else kept as it is. (The router also reads `true`, `false` and plain numbers
 * before that, to the same values.)
 */
export function routerValue(params: URLSearchParams, name: string): unknown {
  const texts = params.getAll(name)
  const text = texts[0]
  if (texts.length > 1) return texts
  if (text === undefined || !jsonStart.test(text)) return text
  try {
    return JSON.parse(text)
  } catch {
    // Not JSON after all: the text, as the router keeps it.
    return text
  }
}

/** The store and period a raw address (`location.search`) opens on the sales screen. */
export function salesSearchOf(address: string): SalesSearch {
  const params = new URLSearchParams(address)
  return salesSearch({
    store: routerValue(params, 'store'),
    year: routerValue(params, 'year'),
    month: routerValue(params, 'month'),
  })
}
