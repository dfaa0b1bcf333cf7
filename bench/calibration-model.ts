// The quiet-store rule's calibration (docs/product.md decisions 125–126), its pure part: outages injected into a store's sale
// instants at seeded random times, an evaluator that runs the app's own rule (domain/quiet.ts) as
// the server would, and the scoring of its alerts against the outages. No clock, no I/O, no Node API:
// bench/calibration.ts feeds it a year of records, tests/web/figures/quiet-calibration.test.ts a tiny
// hand-made case.

import { hourMs, yearOf, yearStart } from '../domain/calendar.ts'
import { type HourlyHistory, quietStore } from '../domain/quiet.ts'
import { seededRandom } from '../scripts/seeded-random.ts'

/** The same seed, the same outages. */
export { seededRandom }

const minuteMs = 60_000
const kstMs = 9 * hourMs

/** An injected outage: no sale reaches the server in [start, end). */
export interface Outage {
  start: number
  end: number
}

/**
 * `count` outages of 1 to 6 hours (whole minutes) starting at random minutes of [from, to), none
 * overlapping another (nor closer than a day to it, so each is scored on its own), sorted.
 */
export function injectOutages(random: () => number, from: number, to: number, count: number): Outage[] {
  const outages: Outage[] = []
  const minutes = Math.floor((to - from) / minuteMs)
  for (let tries = 0; outages.length < count && tries < count * 1000; tries++) {
    const start = from + Math.floor(random() * minutes) * minuteMs
    const end = start + (60 + Math.floor(random() * 301)) * minuteMs
    if (end > to) continue
    if (outages.some((o) => start < o.end + 24 * hourMs && end + 24 * hourMs > o.start)) continue
    outages.push({ start, end })
  }
  return outages.sort((a, b) => a.start - b.start)
}

/** The sale instants (sorted) with those inside an outage taken out: what the server receives. */
export function withoutOutages(sales: readonly number[], outages: readonly Outage[]): number[] {
  return sales.filter((at) => !outages.some((o) => at >= o.start && at < o.end))
}

/** The history the rule reads, from sale instants: a count per UTC hour of each year they fall in. */
export function hourlyHistory(sales: readonly number[], years: readonly number[]): HourlyHistory[] {
  return years.map((year) => {
    const start = yearStart(year)
    const hourCounts = Array<number>(Math.round((yearStart(year + 1) - start) / hourMs)).fill(0)
    for (const at of sales) {
      if (yearOf(at) !== year) continue
      const index = Math.floor((at - start) / hourMs)
      hourCounts[index] = (hourCounts[index] as number) + 1
    }
    return { year, hourCounts }
  })
}

/** A quiet alert: when the evaluator raised it, and its episode (the quiet span's start). */
export interface Alert {
  at: number
  since: number
}

/**
 * The alerts an evaluator running the rule every `stepMs` over [from, to) raises, one per quiet
 * episode (the rule's `since`). `sales` are what the server received (sorted). The history holds the
 * whole replay, later hours included: the rule reads only weeks before `now` and the last sale, which
 * is taken as of `now`, so it sees what a live evaluator would have seen.
 */
export function evaluate(
  sales: readonly number[],
  history: readonly HourlyHistory[],
  from: number,
  to: number,
  stepMs = minuteMs,
): Alert[] {
  const alerts: Alert[] = []
  let next = 0
  let alerted: number | null = null
  for (let now = from; now < to; now += stepMs) {
    while (next < sales.length && (sales[next] as number) <= now) next++
    const lastSaleAt = next > 0 ? (sales[next - 1] as number) : null
    const quiet = quietStore({ history, lastSaleAt, now: new Date(now), online: true })
    if (!quiet || quiet.since === alerted) continue
    alerted = quiet.since
    alerts.push({ at: now, since: quiet.since })
  }
  return alerts
}

/** An alert is explained by an outage when its quiet span [since, at] covers part of the outage. */
const explains = (o: Outage, alert: Alert) => o.start <= alert.at && o.end > alert.since

/** Daytime in Korea: an outage that starts from 09:00 to before 21:00 KST. */
export const isDaytime = (at: number) => {
  const hour = new Date(at + kstMs).getUTCHours()
  return hour >= 9 && hour < 21
}

export interface Score {
  /** Alerts no outage explains, per month of the alert (UTC), 12 entries for the year scored. */
  falsePerMonth: number[]
  /** For each outage: the delay from its start to the first alert it explains, null when none came. */
  delays: { outage: Outage; daytime: boolean; delayMs: number | null }[]
}

/** Scores the alerts against the outages of one store, for the UTC year `year`. */
export function score(alerts: readonly Alert[], outages: readonly Outage[], year: number): Score {
  const falsePerMonth = Array<number>(12).fill(0)
  for (const alert of alerts) {
    if (yearOf(alert.at) !== year || outages.some((o) => explains(o, alert))) continue
    const month = new Date(alert.at).getUTCMonth()
    falsePerMonth[month] = (falsePerMonth[month] as number) + 1
  }
  const delays = outages
    .filter((o) => yearOf(o.start) === year)
    .map((outage) => {
      const first = alerts.find((alert) => explains(outage, alert))
      return { outage, daytime: isDaytime(outage.start), delayMs: first ? first.at - outage.start : null }
    })
  return { falsePerMonth, delays }
}

/** The q-quantile (0–1) of sorted values, by the nearest rank; null for none. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number
}
