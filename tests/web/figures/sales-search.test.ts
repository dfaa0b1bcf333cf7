// The first painter reads the sales screen's address as the route does (src/figures/sales-search.ts):
// it paints the kept totals only for the store and period the screen will open. The same addresses are
// fed to both: the router's own parser and the route's validateSearch, and the painter's reading of the
// raw address.
import { defaultParseSearch } from '@tanstack/react-router'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { salesSearchOf } from '../../../src/figures/sales-search.ts'
import { Route } from '../../../src/routes/_authed/index.tsx'

/** What the route hands the sales screen for an address's search, through the router's parser. */
const routeReads = (search: string) =>
  (Route.options.validateSearch as (search: Record<string, unknown>) => unknown)(defaultParseSearch(search))

const addresses = [
  '',
  '?',
  '?year=2025',
  '?month=6',
  '?year=2025&month=6',
  '?store=2&year=2025&month=6',
  '?year=2025&month=13',
  '?year=1999&month=6',
  '?year=2101&month=6',
  '?year=2025.0&month=6.0',
  '?year=2025.5&month=6',
  '?year=%202025&month=6%20',
  '?year=%222025%22&month=%226%22',
  '?year=[2025]&month=[6]',
  '?year=0x7e9&month=6',
  '?year=2.025e3&month=6',
  '?year=02025&month=06',
  '?year=-2025&month=6',
  '?year=2025&year=2025&month=6',
  '?year=2025&month=6&month=6',
  '?year=&month=',
  '?month=true',
  '?month=false&year=2025',
  '?year=2025&month=null',
  '?year={"a":1}&month=6',
  '?year=Infinity&month=6',
  '?year=2025&month=-Infinity',
  '?year=2025&month=1e%2B0',
  '?year=2025&month=-0',
  '?year=1e400&month=6',
  '?store=true',
  '?store=2.0',
  '?store=-1',
  '?store=0',
  '?store=1e3',
  '?store=9007199254740993',
  '?store=%222%22',
  '?store=2&store=3',
  '?store=[2]',
  '?store=abc&year=2025&month=6',
  '?other=1&year=2024&month=2',
]

describe("the sales screen's address, read by the route and by the first painter", () => {
  it.each(addresses)('%s', (search) => {
    expect(salesSearchOf(search)).toEqual(routeReads(search))
  })

  it('agree on any address made of the pieces that matter', () => {
    const value = fc.oneof(
      fc.integer({ min: -5, max: 2200 }).map(String),
      fc.constantFrom(
        '',
        ' ',
        '"',
        '[',
        ']',
        '.',
        '0',
        'e3',
        'true',
        'null',
        'x',
        '%20',
        '%22',
        '-',
        '+',
        ',',
      ),
      fc.string({ maxLength: 6 }),
    )
    const part = fc.tuple(
      fc.constantFrom('store', 'year', 'month', 'other'),
      fc.array(value, { minLength: 1, maxLength: 3 }).map((pieces) => pieces.join('')),
    )
    fc.assert(
      fc.property(fc.array(part, { maxLength: 5 }), (parts) => {
        const search = `?${parts.map(([name, text]) => `${name}=${text}`).join('&')}`
        expect(salesSearchOf(search)).toEqual(routeReads(search))
      }),
      { numRuns: 2000 },
    )
  })
})
