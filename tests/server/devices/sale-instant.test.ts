// A sale's time is read as date-fns' parseISO read it before the rule moved to domain/ (which imports no
// library): for any text, domain/sales.ts's parseInstant gives the same instant or the same message as
// the reading with date-fns below, which is the rule as it was.
import { isValid, parseISO } from 'date-fns'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { futureToleranceMs, parseInstant, saleMessages } from '../../../domain/sales.ts'

const isoInstant = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/
const offset = /([Zz]|[+-]\d{2}:?\d{2})$/

/** The rule as it was, with date-fns. */
function withDateFns(text: unknown, now: Date): Date | string {
  if (typeof text !== 'string' || !isoInstant.test(text)) return saleMessages.createdAtUnparseable
  if (!offset.test(text)) return saleMessages.createdAtNoOffset
  const date = parseISO(text.replace(' ', 'T'))
  if (!isValid(date)) return saleMessages.createdAtUnparseable
  const year = date.getUTCFullYear()
  if (year < 2000 || year > 2100) return saleMessages.createdAtRange
  if (date.getTime() > now.getTime() + futureToleranceMs) return saleMessages.createdAtFuture
  return date
}

const same = (text: string, now: Date) => {
  const got = parseInstant(text, now)
  const expected = withDateFns(text, now)
  expect(typeof got === 'string' ? got : got.getTime(), text).toEqual(
    typeof expected === 'string' ? expected : expected.getTime(),
  )
}

const digits = (length: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: length, maxLength: length }).map((d) => d.join(''))
/** Two digits, mostly in range, sometimes not. */
const twoDigits = (max: number) =>
  fc.oneof(
    fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0')),
    digits(2),
  )
const instantText = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1995, max: 2105 }).map(String), digits(4)),
    twoDigits(13),
    twoDigits(32),
    fc.constantFrom('T', 't', ' '),
    twoDigits(25),
    twoDigits(60),
    fc.option(fc.tuple(twoDigits(60), fc.option(fc.integer({ min: 1, max: 9 }).chain(digits)))),
    fc.oneof(
      fc.constantFrom('Z', 'z', ''),
      fc
        .tuple(fc.constantFrom('+', '-'), twoDigits(99), fc.constantFrom(':', ''), twoDigits(99))
        .map((p) => p.join('')),
    ),
  )
  .map(
    ([year, month, day, t, hour, minute, seconds, zone]) =>
      `${year}-${month}-${day}${t}${hour}:${minute}${seconds ? `:${seconds[0]}${seconds[1] === null ? '' : `.${seconds[1]}`}` : ''}${zone}`,
  )

describe('a sale time is read as date-fns read it', () => {
  const now = new Date('2026-06-15T03:00:00Z')

  it('on texts of the ISO form, in range and out of it', () => {
    fc.assert(
      fc.property(instantText, (text) => same(text, now)),
      { numRuns: 20_000 },
    )
  })

  it('on any text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => same(text, now)),
      { numRuns: 5_000 },
    )
  })

  it('on the cases at the edges', () => {
    for (const text of [
      '2026-03-01T09:15:00+09:00',
      '2026-03-01 09:15:00+0900',
      '2026-03-01t09:15:00Z',
      '2026-03-01T09:15:00z',
      '2024-02-29T00:00Z',
      '2025-02-29T00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T24:00:01Z',
      '2026-03-01T23:59:59.999999999Z',
      '2026-03-01T00:00:00.0000001-00:30',
      '2026-12-31T23:59:59+99:59',
      '2026-12-31T23:59:59+09:60',
      '2100-12-31T23:59:59Z',
      '2101-01-01T00:00:00+01:00',
      '1999-12-31T23:59:59-01:00',
      '2026-06-15T03:05:00Z',
      '2026-06-15T03:05:00.001Z',
    ])
      same(text, now)
  })
})
