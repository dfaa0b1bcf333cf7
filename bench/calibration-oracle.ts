// The quiet rule's calibration, its yardstick: the store's true rate (known for a simulated store) as a
// cumulative curve of expected sales, and the ORACLE, a CUSUM that knows that rate: its evidence is the
// true expected sales since the last sale, its threshold the least that raises no more false alerts
// than the rule did. Its delays are the floor the rule is measured against ("near the floor"). Pure.
import { hourMs } from '../domain/calendar.ts'
import type { Outage } from './calibration-model.ts'

/** A store's true expected sales, hour by hour from `from` (the rate constant within each UTC hour). */
export class ExpectedCurve {
  private readonly cumulative: Float64Array
  constructor(
    readonly from: number,
    private readonly perHour: readonly number[],
  ) {
    this.cumulative = new Float64Array(perHour.length + 1)
    perHour.forEach((expected, hour) => {
      this.cumulative[hour + 1] = (this.cumulative[hour] as number) + expected
    })
  }

  /** The expected sales from `from` to `at`. */
  at(at: number): number {
    const offset = Math.max(0, Math.min(this.perHour.length, (at - this.from) / hourMs))
    const hour = Math.min(this.perHour.length - 1, Math.floor(offset))
    return (this.cumulative[hour] as number) + (this.perHour[hour] as number) * (offset - hour)
  }

  /** The expected sales in [a, b). */
  between(a: number, b: number): number {
    return this.at(b) - this.at(a)
  }

  /** The instant the expected sales since `start` reach `amount`, or Infinity past the curve's end. */
  reach(start: number, amount: number): number {
    const target = this.at(start) + amount
    let low = 0
    let high = this.perHour.length
    if ((this.cumulative[high] as number) < target) return Number.POSITIVE_INFINITY
    while (high - low > 1) {
      const mid = (low + high) >> 1
      if ((this.cumulative[mid] as number) < target) low = mid
      else high = mid
    }
    const rate = this.perHour[low] as number
    const inHour = rate > 0 ? (target - (this.cumulative[low] as number)) / rate : 0
    return Math.max(start, this.from + (low + Math.min(1, inHour)) * hourMs)
  }
}

/** One gap between received sales: where the oracle at threshold `threshold` alerts in it, if it does. */
function oracleAlert(curve: ExpectedCurve, last: number, next: number, threshold: number) {
  const at = curve.reach(last, threshold)
  return at < next ? at : null
}

/** Whether an alert in a gap from `last` at `at` covers an outage (the calibration's `explains`). */
const explained = (outages: readonly Outage[], last: number, at: number) =>
  outages.some((o) => o.start <= at && o.end > last)

/** The oracle's false alerts over [from, to) at a threshold. */
export function oracleFalse(
  curve: ExpectedCurve,
  sales: readonly number[],
  outages: readonly Outage[],
  { from, to, threshold }: { from: number; to: number; threshold: number },
): number {
  let count = 0
  for (let i = 0; i < sales.length; i++) {
    const last = sales[i] as number
    const at = oracleAlert(curve, last, (sales[i + 1] as number | undefined) ?? to, threshold)
    if (at !== null && at >= from && at < to && !explained(outages, last, at)) count++
  }
  return count
}

/**
 * The least threshold at which the oracle raises at most `allowed` false alerts over all the stores
 * given (bisection: fewer alerts at a higher threshold).
 */
export function oracleThreshold(
  stores: readonly { curve: ExpectedCurve; sales: readonly number[]; outages: readonly Outage[] }[],
  span: { from: number; to: number },
  allowed: number,
): number {
  const count = (threshold: number) =>
    stores.reduce((sum, s) => sum + oracleFalse(s.curve, s.sales, s.outages, { ...span, threshold }), 0)
  let low = 0.5
  let high = 200
  for (let step = 0; step < 30; step++) {
    const mid = (low + high) / 2
    if (count(mid) > allowed) low = mid
    else high = mid
  }
  return high
}

/** The oracle's delay for each outage starting in [from, to): minutes and expected sales lost, null when never. */
export function oracleDelays(
  curve: ExpectedCurve,
  sales: readonly number[],
  outages: readonly Outage[],
  { from, to, threshold }: { from: number; to: number; threshold: number },
): ({ minutes: number; lost: number } | null)[] {
  return outages
    .filter((o) => o.start >= from && o.start < to)
    .map((outage) => {
      const index = sales.findIndex((at) => at >= outage.start)
      const last = index > 0 ? (sales[index - 1] as number) : null
      if (last === null) return null
      const next = index >= 0 ? (sales[index] as number) : to
      const at = oracleAlert(curve, last, next, threshold)
      if (at === null || at < outage.start) return null
      return { minutes: (at - outage.start) / 60_000, lost: curve.between(outage.start, at) }
    })
}
