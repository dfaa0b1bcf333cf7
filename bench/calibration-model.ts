// The quiet-store rule's calibration (docs/product.md §2.5, decisions 125–126), its pure part: outages
// injected into a store's sale instants at seeded random times, an evaluator that runs the app's own
// rule (domain/quiet.ts, its model made once a UTC day as the server keeps it) as the server would, and
// the scoring of its alerts against the outages. No clock, no I/O, no Node API: bench/calibration.ts
// feeds it weeks of records, tests/web/figures/quiet-calibration.test.ts a tiny hand-made case.

import { dayMs, hourMs, startOfDay, yearOf, yearStart } from '../domain/calendar.ts'
import { type HourlyHistory, type QuietModel, quietModel, quietStore } from '../domain/quiet.ts'
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
 * `count` outages of 1 to 6 hours (whole minutes; `hours` sets another range) starting at random minutes
 * of [from, to) (`daytime`: only minutes from 09:00 to before 21:00 Korea time), none overlapping
 * another (nor closer than a day to it, so each is scored on its own), sorted.
 */
export function injectOutages(
  random: () => number,
  from: number,
  to: number,
  count: number,
  { hours = [1, 6], daytime = false }: { hours?: [number, number]; daytime?: boolean } = {},
): Outage[] {
  const outages: Outage[] = []
  const minutes = Math.floor((to - from) / minuteMs)
  const [least, most] = hours
  for (let tries = 0; outages.length < count && tries < count * 1000; tries++) {
    const start = from + Math.floor(random() * minutes) * minuteMs
    const end = start + (least * 60 + Math.floor(random() * ((most - least) * 60 + 1))) * minuteMs
    if (end > to || (daytime && !isDaytime(start))) continue
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
 * whole replay, later hours included: the rule's model reads only the days before `now`'s and the last
 * sale is taken as of `now`, so it sees what a live evaluator would have seen. The model is made once
 * a UTC day (`models` keeps each day's, for the caller to read the thresholds).
 */
export function evaluate(
  sales: readonly number[],
  history: readonly HourlyHistory[],
  from: number,
  to: number,
  stepMs = minuteMs,
  models = new Map<number, QuietModel | null>(),
): Alert[] {
  const alerts: Alert[] = []
  let next = 0
  let alerted: number | null = null
  for (let now = from; now < to; now += stepMs) {
    while (next < sales.length && (sales[next] as number) <= now) next++
    const lastSaleAt = next > 0 ? (sales[next - 1] as number) : null
    const day = startOfDay(now)
    if (!models.has(day)) models.set(day, quietModel(history, day))
    const model = models.get(day) ?? null
    const quiet = quietStore({ history, lastSaleAt, now: new Date(now), online: true, model })
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
  for (const alert of falseAlerts(alerts, outages, yearStart(year), yearStart(year + 1))) {
    const month = new Date(alert.at).getUTCMonth()
    falsePerMonth[month] = (falsePerMonth[month] as number) + 1
  }
  return { falsePerMonth, delays: delaysOf(alerts, outages, yearStart(year), yearStart(year + 1)) }
}

/** The alerts of [from, to) no outage explains. */
export const falseAlerts = (alerts: readonly Alert[], outages: readonly Outage[], from: number, to: number) =>
  alerts.filter((alert) => alert.at >= from && alert.at < to && !outages.some((o) => explains(o, alert)))

/** For each outage starting in [from, to): the delay from its start to the first alert it explains (null: none). */
export function delaysOf(alerts: readonly Alert[], outages: readonly Outage[], from: number, to: number) {
  return outages
    .filter((o) => o.start >= from && o.start < to)
    .map((outage) => {
      const first = alerts.find((alert) => explains(outage, alert))
      return { outage, daytime: isDaytime(outage.start), delayMs: first ? first.at - outage.start : null }
    })
}

/** The days [from, to) cover, for rates a store-month. */
export const daysOf = (from: number, to: number) => (to - from) / dayMs

/** The q-quantile (0–1) of sorted values, by the nearest rank; null for none. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number
}
