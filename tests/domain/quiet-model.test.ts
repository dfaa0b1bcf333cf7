// The quiet rule's model of a store (domain/quiet-model.ts): its expected rate (shape × recent level),
// the tail fit on synthetic stores whose process is known (Poisson: scale 1; visits of k sales: about
// k), the threshold's false alerts on a long synthetic replay, and the evidence across 00:00 UTC.
import { describe, expect, it } from 'vitest'
import { hourlyHistory } from '../../bench/calibration-model.ts'
import { quietAfterText } from '../../domain/alert-texts.ts'
import {
  CELL_PRIOR_SALES,
  expectedBetween,
  FALSE_ALERT_BUDGET,
  fitScale,
  MAX_EXPECTED_SALES,
  MIN_EXPECTED_SALES,
  quietModel,
  rateShape,
  silenceMinutes,
  tailThreshold,
} from '../../domain/quiet-model.ts'
import { seededRandom } from '../../scripts/seeded-random.ts'

const minuteMs = 60_000
const hourMs = 60 * minuteMs
const dayMs = 24 * hourMs
const start = Date.UTC(2026, 0, 5) // a Monday

/** Sale instants over `days` days from `start`: a Poisson process of `perHour` visits an hour in UTC hours 0–13, each of `perVisit` sales at once. */
function store(days: number, perHour: number, perVisit: number, seed: number, from = start): number[] {
  const random = seededRandom(seed)
  const sales: number[] = []
  for (let day = 0; day < days; day++)
    for (let at = from + day * dayMs; ; ) {
      at += (-Math.log(1 - random()) / perHour) * hourMs
      if (at >= from + day * dayMs + 14 * hourMs) break
      for (let n = 0; n < perVisit; n++) sales.push(at + n)
    }
  return sales
}

/** Windows of one hour of a known process: hours of `expected` sales, empty as often as exp(-expected/scale). */
function windows(expectedPerHour: number[], scale: number, seed: number) {
  const random = seededRandom(seed)
  return expectedPerHour.map((expected) => ({ expected, empty: random() < Math.exp(-expected / scale) }))
}

describe('the rate model', () => {
  it("is each weekday × hour cell where it has sales enough, the hour's profile where it has few", () => {
    // 28 days: Mondays sell 40 in hour 3, other days 4; hour 10 sells 1 on Mondays only.
    const days = Array.from({ length: 28 }, (_, index) => {
      const dayStart = start + index * dayMs
      const monday = new Date(dayStart).getUTCDay() === 1
      const counts = Array<number>(24).fill(0)
      counts[3] = monday ? 40 : 4
      counts[10] = monday ? 1 : 0
      return { start: dayStart, counts }
    })
    const shape = rateShape(days)
    // Monday's factor: its 41 a day over the 28 days' mean; the profile of hour 3: (4 × 40 + 24 × 4) / 28.
    const mondayFactor = 41 / ((4 * 41 + 24 * 4) / 28)
    // Monday 03:00: 160 sales in the cell, weight 160 / 180 on the cell's 40.
    const cellWeight = 160 / (160 + CELL_PRIOR_SALES)
    expect(shape[24 + 3]).toBeCloseTo(cellWeight * 40 + (1 - cellWeight) * mondayFactor * (256 / 28), 6)
    // Monday 10:00: 4 sales, weight 4 / 24; the rest from the profile (4/28 a day) × Monday's factor.
    const weight = 4 / (4 + CELL_PRIOR_SALES)
    expect(shape[24 + 10]).toBeCloseTo(weight * 1 + (1 - weight) * mondayFactor * (4 / 28), 6)
  })

  it('follows the recent level: a store selling twice as much the last week expects about twice', () => {
    const history = hourlyHistory(
      [...store(49, 4, 1, 1), ...store(7, 8, 1, 2, start + 49 * dayMs)].sort((a, b) => a - b),
      [2026],
    )
    const model = quietModel(history, start + 56 * dayMs)
    expect(model?.level).toBeGreaterThan(1.6)
    expect(model?.level).toBeLessThan(2)
  })

  it('says nothing with fewer than 4 weeks of history, or too few sales', () => {
    const history = hourlyHistory(store(27, 4, 1, 3), [2026])
    expect(quietModel(history, start + 27 * dayMs)).toBeNull()
    expect(quietModel(hourlyHistory(store(28, 4, 1, 3), [2026]), start + 28 * dayMs)).not.toBeNull()
    // A sale every other day: 28 days, 14 sales.
    const sparse = Array.from({ length: 14 }, (_, index) => start + index * 2 * dayMs + 5 * hourMs)
    expect(quietModel(hourlyHistory(sparse, [2026]), start + 28 * dayMs)).toBeNull()
  })
})

describe('the tail fit', () => {
  const expectedPerHour = Array.from({ length: 4000 }, (_, index) => 0.2 + (index % 40) / 5)

  it('recovers the scale of windows drawn from a known law', () => {
    for (const scale of [1, 2.3, 4])
      expect(fitScale(windows(expectedPerHour, scale, 7))).toBeCloseTo(scale, scale < 2 ? 1 : 0)
  })

  it('finds scale 1 for a Poisson store and about 3 for one selling in visits of 3 (from hourly counts)', () => {
    const poisson = quietModel(hourlyHistory(store(56, 2, 1, 11), [2026]), start + 56 * dayMs)
    expect(poisson?.scale).toBeGreaterThanOrEqual(1)
    expect(poisson?.scale).toBeLessThan(1.35)
    const visits = quietModel(hourlyHistory(store(56, 2 / 3, 3, 12), [2026]), start + 56 * dayMs)
    expect(visits?.scale).toBeGreaterThan(2.3)
    expect(visits?.scale).toBeLessThan(3.7)
  })

  it('sets the threshold so that sales a month × P(gap > T) is the budget, clamped', () => {
    const { threshold } = tailThreshold(2, 3000)
    expect(3000 * (Math.exp(-threshold / 2) / 2)).toBeCloseTo(FALSE_ALERT_BUDGET, 6)
    expect(tailThreshold(1, 10)).toEqual({ threshold: MIN_EXPECTED_SALES, clamped: 'min' })
    expect(tailThreshold(10, 100_000)).toEqual({ threshold: MAX_EXPECTED_SALES, clamped: 'max' })
  })

  it('keeps a long replay of each store within the budget of 1 false alert a month (it aims at FALSE_ALERT_BUDGET)', () => {
    for (const [perHour, perVisit, seed] of [
      [6, 1, 21],
      [2, 3, 22],
      [1, 1, 25],
      [2, 3, 24],
    ] as const) {
      // 8 weeks of history, then 26 weeks of the same store: each gap whose expected sales reach the
      // threshold is a false alert (no outage).
      const sales = store(56 + 182, perHour, perVisit, seed)
      const history = hourlyHistory(sales, [2026])
      const model = quietModel(history, start + 56 * dayMs)
      if (!model) throw new Error('no model')
      const replay = sales.filter((at) => at >= start + 56 * dayMs)
      let alerts = 0
      for (let i = 1; i < replay.length; i++)
        if (expectedBetween(model, replay[i - 1] as number, replay[i] as number) >= model.threshold) alerts++
      expect(alerts / (182 / 30.44)).toBeLessThanOrEqual(1)
    }
  })

  it('tells how long a silence at the daytime rate reaches the threshold', () => {
    const model = quietModel(hourlyHistory(store(56, 6, 1, 31), [2026]), start + 56 * dayMs)
    if (!model) throw new Error('no model')
    // About 6 sales an hour over 14 of the 12 daytime hours read (00–12 UTC): T / 6 hours.
    expect(silenceMinutes(model)).toBeGreaterThan((model.threshold / 6.6) * 60)
    expect(silenceMinutes(model)).toBeLessThan((model.threshold / 5.4) * 60)
  })
})

describe('the evidence', () => {
  it('runs across 00:00 UTC: the expected sales since the last sale, the day before included', () => {
    // A store selling around the clock, 6 an hour.
    const sales: number[] = []
    for (let at = start; at < start + 57 * dayMs; at += 10 * minuteMs) sales.push(at)
    const model = quietModel(hourlyHistory(sales, [2026]), start + 57 * dayMs)
    if (!model) throw new Error('no model')
    const lastSale = start + 57 * dayMs - 30 * minuteMs
    const expected = expectedBetween(model, lastSale, start + 57 * dayMs + hourMs)
    expect(expected).toBeCloseTo(9 * model.level, 1)
  })
})

describe("the alerts screen's line", () => {
  it('tells roughly how long a silence takes, and where a small store is told', () => {
    expect(quietAfterText({ minutes: 45, push: true })).toBe('이 매장은 약 45분 판매가 없으면 알려드립니다.')
    expect(quietAfterText({ minutes: 170, push: true })).toBe(
      '이 매장은 약 3시간 판매가 없으면 알려드립니다.',
    )
    expect(quietAfterText({ minutes: 420, push: false })).toBe(
      '이 매장은 판매가 하루 20건 미만이라 약 7시간 판매가 없으면 아침 요약에서 알려드립니다.',
    )
    expect(quietAfterText(null)).toBe('이 매장은 판매 기록이 아직 짧아 판매 없음을 알리지 않습니다.')
  })
})
