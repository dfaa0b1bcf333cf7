// The one rule of a store-year's figures and their status (src/figures/year-figures.ts, docs/product.md
// decision 51), which the sales screen and the stores overview both read: every status from what the
// year query says, and what the chart and the CSV export agree on of days not yet come.
import { describe, expect, it } from 'vitest'
import { emptyBuckets } from '../../../domain/buckets.ts'
import { periodCsv } from '../../../src/features/sales/export-csv.ts'
import { daySeries, hasCome, monthSeries } from '../../../src/figures/series.ts'
import { yearFigures } from '../../../src/figures/year-figures.ts'
import type { Usage } from '../../../src/figures/year-query.ts'
import { OfflineError } from '../../../src/lib/api.ts'

const kept: Usage = { buckets: emptyBuckets(2026), etag: '"a"' }
const lastYear: Usage = { buckets: emptyBuckets(2025), etag: '"b"' }
const query = (data: Usage | undefined, isError: boolean, failureReason: unknown = null) => ({
  data,
  isError,
  failureReason,
  dataUpdatedAt: 1_700_000_000_000,
})

describe("a store-year's status", () => {
  it('is loading with nothing yet and nothing wrong, current with figures and nothing wrong', () => {
    expect(yearFigures(query(undefined, false), undefined, true)).toEqual({
      buckets: undefined,
      previous: undefined,
      status: 'loading',
      fetchedAt: undefined,
    })
    expect(yearFigures(query(kept, false), lastYear, true)).toEqual({
      buckets: kept.buckets,
      previous: lastYear.buckets,
      status: 'current',
      fetchedAt: 1_700_000_000_000,
    })
  })

  it('is failed with nothing kept, refreshFailed with kept figures, when the server answered an error', () => {
    expect(yearFigures(query(undefined, true, new Error('500')), undefined, true).status).toBe('failed')
    const refreshFailed = yearFigures(query(kept, true, new Error('500')), undefined, true)
    expect(refreshFailed.status).toBe('refreshFailed')
    expect(refreshFailed.buckets).toBe(kept.buckets)
  })

  it('is offline when the device says so or the fetch got no answer, figures or not, error or not', () => {
    for (const data of [undefined, kept])
      for (const isError of [false, true]) {
        expect(yearFigures(query(data, isError), undefined, false).status).toBe('offline')
        expect(yearFigures(query(data, isError, new OfflineError()), undefined, true).status).toBe('offline')
      }
  })
})

describe('days that have not yet come', () => {
  const buckets = emptyBuckets(2026)
  ;(buckets.days[10] as number[])[2] = 12500
  ;(buckets.dayCounts[10] as number[])[2] = 3
  const now = new Date('2026-11-03T23:59:59.999Z')

  it('are today (UTC) and before; a month has come when its 1st has', () => {
    expect(hasCome(2026, 11, 3, now)).toBe(true)
    expect(hasCome(2026, 11, 4, now)).toBe(false)
    expect(hasCome(2026, 11, 4, new Date('2026-11-04T00:00:00.000Z'))).toBe(true)
    expect(monthSeries(buckets, undefined, 2026, now).values.map((value) => value !== null)).toEqual(
      Array.from({ length: 12 }, (_, index) => index < 11),
    )
  })

  it('are left out of the chart and of the CSV export alike', () => {
    const series = daySeries(buckets, undefined, { year: 2026, month: 11 }, now)
    expect(series.values.slice(0, 4)).toEqual([0, 0, 12500, null])
    expect(series.counts.slice(0, 4)).toEqual([0, 0, 3, null])
    const rows = periodCsv(buckets, { year: 2026, month: 11 }, false, now).slice(1).split('\r\n')
    expect(rows.slice(1, -1)).toHaveLength(series.values.filter((value) => value !== null).length)
  })

  it("are drawn against the month before by day number, January's against last year's December", () => {
    const previousYear = emptyBuckets(2025)
    ;(previousYear.days[11] as number[])[30] = 700
    const january = daySeries(emptyBuckets(2026), previousYear, { year: 2026, month: 1 }, now)
    expect(january.earlier[30]).toBe(700)
    expect(
      daySeries(buckets, undefined, { year: 2026, month: 1 }, now).earlier.every((v) => v === null),
    ).toBe(true)
  })
})

describe('the month in progress', () => {
  const buckets = emptyBuckets(2026)

  it("is this year's current month (UTC), also on its first day; a past year has none", () => {
    expect(monthSeries(buckets, undefined, 2026, new Date('2026-12-01T00:00:00.000Z')).inProgress).toBe(11)
    expect(monthSeries(buckets, undefined, 2026, new Date('2026-11-30T23:59:59.999Z')).inProgress).toBe(10)
    expect(monthSeries(buckets, undefined, 2026, new Date('2026-01-01T03:00:00.000Z')).inProgress).toBe(0)
    expect(monthSeries(buckets, undefined, 2026, new Date('2027-01-01T00:00:00.000Z')).inProgress).toBeNull()
  })

  it("is no day of a month's days (a day's figure is its own)", () => {
    const now = new Date('2026-12-01T05:00:00.000Z')
    expect(daySeries(buckets, undefined, { year: 2026, month: 12 }, now).inProgress).toBeNull()
  })
})
