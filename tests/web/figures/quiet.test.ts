import { describe, expect, it } from 'vitest'
import {
  HISTORY_WEEKS,
  type HourlyHistory,
  MAX_EXPECTED_SALES,
  MIN_EXPECTED_SALES,
  MIN_HISTORY_WEEKS,
  QUIET_PUSH_SALES_PER_DAY,
  quietModel,
  quietSpellsOn,
  quietStore,
  quietStoreText,
} from '../../../domain/quiet.ts'
import { FALSE_ALERT_BUDGET } from '../../../domain/quiet-model.ts'

const hourMs = 60 * 60 * 1000
const dayMs = 24 * hourMs
const daysIn = (year: number) => (Date.UTC(year + 1, 0, 1) - Date.UTC(year, 0, 1)) / dayMs

/**
 * Buckets of a store open from `opened` (UTC midnight) that makes `perHour` sales in each of the UTC
 * hours 0–13 (09:00–22:00 in Korea) and none at night, up to `until`.
 */
function laundromat(years: number[], opened: string, until: Date, perHour = 6): HourlyHistory[] {
  const start = new Date(opened).getTime()
  return years.map((year) => {
    const hourCounts = Array<number>(daysIn(year) * 24).fill(0)
    for (let index = 0; index < hourCounts.length; index++) {
      const at = Date.UTC(year, 0, 1) + index * hourMs
      if (at >= start && at + hourMs <= until.getTime() && new Date(at).getUTCHours() <= 13)
        hourCounts[index] = perHour
    }
    return { year, hourCounts }
  })
}

/** The history up to `lastSale` (its hour counts after it removed), as a store that stopped then. */
function stoppedAt(history: HourlyHistory[], lastSale: Date): HourlyHistory[] {
  return history.map(({ year, hourCounts }) => ({
    year,
    hourCounts: hourCounts.map((count, index) =>
      Date.UTC(year, 0, 1) + index * hourMs > lastSale.getTime() ? 0 : count,
    ),
  }))
}

describe('a quiet store', () => {
  it('has its limits named: 8 weeks read, at least 4, a threshold from 4 to 40 expected sales, a push from 20 a day', () => {
    expect([HISTORY_WEEKS, MIN_HISTORY_WEEKS, MIN_EXPECTED_SALES, MAX_EXPECTED_SALES]).toEqual([8, 4, 4, 40])
    expect(QUIET_PUSH_SALES_PER_DAY).toBe(20)
  })

  it("a short lull is no warning: fewer sales expected than the store's own threshold", () => {
    // 6 sales an hour, never an hour without one: the tail of a store at least as regular as a
    // Poisson one (scale 1), 84 sales a day: T = ln(84 × 30.44 / budget) ≈ 8.9, reached after 89 min.
    const lastSale = new Date('2026-11-20T05:00:00.000Z')
    const history = stoppedAt(
      laundromat([2026], '2026-06-01', new Date('2026-11-20T12:00:00.000Z')),
      lastSale,
    )
    const model = quietModel(history, Date.parse('2026-11-20T00:00:00.000Z'))
    expect(model?.scale).toBe(1)
    expect(model?.threshold).toBeCloseTo(Math.log((84 * 30.44) / FALSE_ALERT_BUDGET), 6)
    const at = (minutes: number) =>
      quietStore({
        history,
        lastSaleAt: lastSale.getTime(),
        now: new Date(lastSale.getTime() + minutes * 60_000),
        online: true,
      })
    expect(at(88)).toBeNull()
    expect(at(89)).toEqual({ since: lastSale.getTime(), quietHours: 1, expectedSales: 9 })
  })

  it('a normal evening: a sale ten minutes ago is no warning', () => {
    const now = new Date('2026-11-20T12:30:00.000Z')
    const history = laundromat([2026], '2026-06-01', now)
    expect(
      quietStore({ history, lastSaleAt: Date.parse('2026-11-20T12:20:00.000Z'), now, online: true }),
    ).toBeNull()
  })

  it('a closed night: hours without sales when there usually are none are no warning', () => {
    const now = new Date('2026-11-20T18:00:00.000Z')
    const lastSale = new Date('2026-11-20T13:55:00.000Z')
    const history = stoppedAt(laundromat([2026], '2026-06-01', now), lastSale)
    expect(quietStore({ history, lastSaleAt: lastSale.getTime(), now, online: true })).toBeNull()
  })

  it('a broken afternoon: three hours without a sale where 18 are usual is a warning', () => {
    const now = new Date('2026-11-20T08:00:00.000Z')
    const lastSale = new Date('2026-11-20T05:00:00.000Z')
    const history = stoppedAt(laundromat([2026], '2026-06-01', now), lastSale)
    const quiet = quietStore({ history, lastSaleAt: lastSale.getTime(), now, online: true })
    expect(quiet).toEqual({ since: lastSale.getTime(), quietHours: 3, expectedSales: 18 })
    expect(quiet && quietStoreText(quiet)).toBe('3시간째 결제 없음 · 평소 이 시간 약 18건')
  })

  it('the current hour counts for the part of it that has passed', () => {
    const now = new Date('2026-11-20T07:40:00.000Z')
    const lastSale = new Date('2026-11-20T05:00:00.000Z')
    const history = stoppedAt(laundromat([2026], '2026-06-01', now), lastSale)
    // 2 h 40 min × 6 an hour = 16 expected.
    expect(quietStore({ history, lastSaleAt: lastSale.getTime(), now, online: true })).toEqual({
      since: lastSale.getTime(),
      quietHours: 2,
      expectedSales: 16,
    })
  })

  it('a new store (fewer than 4 weeks of history) gets no warning, however quiet', () => {
    const now = new Date('2026-11-20T08:00:00.000Z')
    const lastSale = new Date('2026-11-20T02:00:00.000Z')
    const history = stoppedAt(laundromat([2026], '2026-10-27', now), lastSale)
    expect(quietStore({ history, lastSaleAt: lastSale.getTime(), now, online: true })).toBeNull()
    // With exactly 4 weeks it speaks.
    const older = stoppedAt(laundromat([2026], '2026-10-23', now), lastSale)
    expect(quietStore({ history: older, lastSaleAt: lastSale.getTime(), now, online: true })).not.toBeNull()
  })

  it('a store whose history is all zero gets no warning', () => {
    const now = new Date('2026-11-20T08:00:00.000Z')
    const history = [{ year: 2026, hourCounts: Array<number>(daysIn(2026) * 24).fill(0) }]
    expect(quietStore({ history, lastSaleAt: null, now, online: true })).toBeNull()
  })

  it('offline, nothing is said', () => {
    const now = new Date('2026-11-20T08:00:00.000Z')
    const lastSale = new Date('2026-11-20T05:00:00.000Z')
    const history = stoppedAt(laundromat([2026], '2026-06-01', now), lastSale)
    expect(quietStore({ history, lastSaleAt: lastSale.getTime(), now, online: false })).toBeNull()
  })

  it('a silence runs across 00:00 UTC: the span starts at the last sale, the day before too', () => {
    // 10 minutes of yesterday's hour 13 (1 expected) and today's hours 0–2 (18).
    const now = new Date('2026-11-20T03:00:00.000Z')
    const lastSale = new Date('2026-11-19T13:50:00.000Z')
    const history = stoppedAt(laundromat([2026], '2026-06-01', now), lastSale)
    const quiet = quietStore({ history, lastSaleAt: lastSale.getTime(), now, online: true })
    expect(quiet).toEqual({ since: lastSale.getTime(), quietHours: 13, expectedSales: 19 })
    expect(quiet && quietStoreText(quiet)).toBe('13시간째 결제 없음 · 평소 이 시간 약 19건')
    expect(quietStoreText({ since: 0, quietHours: 27, expectedSales: 90 })).toBe(
      '1일 3시간째 결제 없음 · 평소 이 시간 약 90건',
    )
  })

  it("counts a day's quiet spells from its hours, one a silence, for the morning summary", () => {
    // Today: no sale in hour 2 (6 expected: no spell), hours 5–7 (18: a spell) and from 10:00 on (24:
    // another); the next day sells nothing, a silence already counted.
    const day = Date.parse('2026-11-20T00:00:00.000Z')
    const dead = (hour: number) => hour === 2 || (hour >= 5 && hour < 8) || hour >= 10
    const history = laundromat([2026], '2026-06-01', new Date(day + dayMs)).map(({ year, hourCounts }) => ({
      year,
      hourCounts: hourCounts.map((count, index) => {
        const at = Date.UTC(year, 0, 1) + index * hourMs
        return at >= day && dead((at - day) / hourMs) ? 0 : count
      }),
    }))
    expect(quietSpellsOn(history, day)).toBe(2)
    expect(quietSpellsOn(history, day + dayMs)).toBe(0)
  })

  it('early in January the usual comes from last year’s buckets', () => {
    const now = new Date('2027-01-05T08:00:00.000Z')
    const lastSale = new Date('2027-01-05T05:00:00.000Z')
    const history = stoppedAt(laundromat([2026, 2027], '2026-06-01', now), lastSale)
    expect(quietStore({ history, lastSaleAt: lastSale.getTime(), now, online: true })).toEqual({
      since: lastSale.getTime(),
      quietHours: 3,
      expectedSales: 18,
    })
    // Without last year's buckets there are not 4 weeks of history to go on.
    const thisYearOnly = history.filter(({ year }) => year === 2027)
    expect(
      quietStore({ history: thisYearOnly, lastSaleAt: lastSale.getTime(), now, online: true }),
    ).toBeNull()
  })
})
