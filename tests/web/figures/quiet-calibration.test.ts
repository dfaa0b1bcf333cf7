// The quiet rule's calibration (bench/calibration.ts) on a tiny hand-made case: its outages, what they
// take out, the evaluator's alerts (one per episode) and their scoring, false alerts included.
import { describe, expect, it } from 'vitest'
import {
  type Alert,
  evaluate,
  hourlyHistory,
  injectOutages,
  isDaytime,
  quantile,
  score,
  seededRandom,
  withoutOutages,
} from '../../../bench/calibration-model.ts'
import type { QuietModel } from '../../../domain/quiet.ts'

const minuteMs = 60_000
const hourMs = 60 * minuteMs
const dayMs = 24 * hourMs
const year = 2025
const at = (iso: string) => Date.parse(iso)

/** A sale every 5 minutes (12 an hour) in the UTC hours 0–13 of each day from 1 January for `days` days. */
function everyFiveMinutes(days: number): number[] {
  const sales: number[] = []
  for (let day = 0; day < days; day++)
    for (let minute = 0; minute < 14 * 60; minute += 5)
      sales.push(Date.UTC(year, 0, 1) + day * dayMs + minute * minuteMs)
  return sales
}

describe('the calibration', () => {
  it('injects outages of 1 to 6 whole-minute hours inside the span, apart, the same for the same seed', () => {
    const from = at('2025-01-01T00:00:00Z')
    const to = at('2026-01-01T00:00:00Z')
    const outages = injectOutages(seededRandom(7), from, to, 40)
    expect(outages).toHaveLength(40)
    for (const [index, { start, end }] of outages.entries()) {
      expect(start).toBeGreaterThanOrEqual(from)
      expect(end).toBeLessThanOrEqual(to)
      expect(end - start).toBeGreaterThanOrEqual(hourMs)
      expect(end - start).toBeLessThanOrEqual(6 * hourMs)
      expect((end - start) % minuteMs).toBe(0)
      if (index > 0) expect(start).toBeGreaterThanOrEqual((outages[index - 1]?.end ?? 0) + dayMs)
    }
    // Spread over the year, not bunched: every quarter has some.
    for (let quarter = 0; quarter < 4; quarter++)
      expect(
        outages.some(
          (o) =>
            new Date(o.start).getUTCMonth() >= quarter * 3 &&
            new Date(o.start).getUTCMonth() < quarter * 3 + 3,
        ),
      ).toBe(true)
    expect(injectOutages(seededRandom(7), from, to, 40)).toEqual(outages)
    expect(injectOutages(seededRandom(8), from, to, 40)).not.toEqual(outages)
  })

  it('takes out the sales inside an outage, its start included and its end not', () => {
    const outage = { start: at('2025-02-13T02:00:00Z'), end: at('2025-02-13T03:00:00Z') }
    const sales = [outage.start - 1, outage.start, outage.start + 30 * minuteMs, outage.end - 1, outage.end]
    expect(withoutOutages(sales, [outage])).toEqual([outage.start - 1, outage.end])
  })

  it('alerts once for an outage, after the expected sales since the last one, and counts a natural gap as false', () => {
    // 6 weeks of a sale every 5 minutes; on 13 February an outage from 02:00 to 06:00 UTC, and on
    // 14 February no sale from 08:00 to 12:00 UTC with no outage (the store's own gap: a false alert).
    const outage = { start: at('2025-02-13T02:00:00Z'), end: at('2025-02-13T06:00:00Z') }
    const gap = { start: at('2025-02-14T08:00:00Z'), end: at('2025-02-14T12:00:00Z') }
    const sales = withoutOutages(everyFiveMinutes(45), [outage, gap])
    const history = hourlyHistory(sales, [year])
    const models = new Map<number, QuietModel | null>()
    const alerts = evaluate(
      sales,
      history,
      at('2025-02-12T00:00:00Z'),
      at('2025-02-15T00:00:00Z'),
      minuteMs,
      models,
    )
    // The last sale before each was at 01:55 and 07:55; 12 sales an hour are expected, so the rule
    // speaks at the first minute its day's threshold × 5 minutes have passed since it, once per episode.
    const delayOn = (day: string) =>
      Math.ceil((models.get(at(`${day}T00:00:00Z`))?.threshold ?? Number.NaN) * 5) * minuteMs
    const delay = delayOn('2025-02-13')
    expect(alerts).toEqual([
      { at: at('2025-02-13T01:55:00Z') + delay, since: at('2025-02-13T01:55:00Z') },
      { at: at('2025-02-14T07:55:00Z') + delayOn('2025-02-14'), since: at('2025-02-14T07:55:00Z') },
    ])
    const { falsePerMonth, delays } = score(alerts, [outage], year)
    expect(falsePerMonth).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    expect(delays).toEqual([{ outage, daytime: isDaytime(outage.start), delayMs: delay - 5 * minuteMs }])
  })

  it('scores by the quiet span: an outage inside it explains the alert, an outage never alerted has no delay', () => {
    const outages = [
      { start: at('2025-03-03T03:00:00Z'), end: at('2025-03-03T05:00:00Z') },
      { start: at('2025-05-05T03:00:00Z'), end: at('2025-05-05T04:00:00Z') },
    ]
    const alerts: Alert[] = [
      // Quiet since before the outage, alerted in it: explained, 40 minutes after its start.
      { since: at('2025-03-03T02:50:00Z'), at: at('2025-03-03T03:40:00Z') },
      // Alerted after the outage ended, the span still covering it (no sale came): explained.
      { since: at('2025-03-03T02:50:00Z') + 1, at: at('2025-03-03T05:30:00Z') },
      // Quiet since after the outage ended: false, in March.
      { since: at('2025-03-03T05:10:00Z'), at: at('2025-03-03T06:00:00Z') },
      // Before the second outage: false, in May.
      { since: at('2025-05-05T01:00:00Z'), at: at('2025-05-05T02:59:00Z') },
      // Another year: not scored.
      { since: at('2024-05-05T01:00:00Z'), at: at('2024-05-05T02:00:00Z') },
    ]
    const { falsePerMonth, delays } = score(alerts, outages, year)
    expect(falsePerMonth).toEqual([0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0])
    expect(delays.map((d) => d.delayMs)).toEqual([40 * minuteMs, null])
    // 03:00 UTC is noon in Korea: daytime; 15:00 UTC is midnight there.
    expect(isDaytime(at('2025-03-03T03:00:00Z'))).toBe(true)
    expect(isDaytime(at('2025-03-03T15:00:00Z'))).toBe(false)
  })

  it('takes quantiles by the nearest rank', () => {
    expect(quantile([], 0.5)).toBeNull()
    expect(quantile([10, 20, 30, 40], 0.5)).toBe(20)
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9)
  })
})
