// `--simulate`: sales at a laundry store's usual rhythm, for demos and trials. The rhythm is defined
// here, once: the demo data (server/db/seed.ts) reads it from this file, so the live demo devices sell
// as the seeded history did (the device imports nothing of the server): by hour of the day in Korea, by
// weekday and by month, with the same prices. Arrivals are a Poisson
// process whose rate follows that rhythm (drawn by thinning), so the figures look like the seeded ones.

/** How often a cycle starts at each hour of the day, Korea time: quiet at night, busiest after work. */
export const hourWeights = [3, 2, 1, 1, 1, 1, 2, 4, 6, 7, 8, 8, 8, 8, 8, 8, 9, 10, 12, 13, 13, 12, 9, 6]
const hourTotal = hourWeights.reduce((sum, weight) => sum + weight, 0)
/** By ISO weekday 1 (Monday) to 7: busier at weekends and on Fridays. */
export const weekdayFactor = [0.92, 0.92, 0.92, 0.92, 1.1, 1.35, 1.35]
/** By month: busier in the rainy season and in winter. */
export const monthFactor = [1.1, 1.0, 0.95, 0.95, 1.0, 1.05, 1.2, 1.2, 1.0, 0.95, 1.0, 1.1]
/** Prices of a cycle in won, with how often each is paid: small and large washers, dryers, bedding. */
export const amountWeights: [number, number][] = [
  [3000, 5],
  [3500, 2],
  [4000, 6],
  [4500, 1],
  [5000, 3],
  [6000, 2],
  [7000, 1],
  [8000, 1],
]
const amountTotal = amountWeights.reduce((sum, [, weight]) => sum + weight, 0)

export interface Rhythm {
  /** Cycles on an ordinary day (before the weekday and month factors). */
  perDay: number
  /** Hours of the day in Korea, [from, to), when the device sends nothing (a broken reader). */
  silent?: [number, number]
  /** Time runs this much faster (a demo that shows a day in minutes); 1 by default. */
  speed?: number
}

const hourMs = 3600_000
const kst = (instant: number) => new Date(instant + 9 * hourMs)

export function isSilent(rhythm: Rhythm, instant: number) {
  if (!rhythm.silent) return false
  const hour = kst(instant).getUTCHours()
  const [from, to] = rhythm.silent
  return from <= to ? hour >= from && hour < to : hour >= from || hour < to
}

/** Expected sales per millisecond at `instant`. */
export function rateAt(rhythm: Rhythm, instant: number) {
  if (isSilent(rhythm, instant)) return 0
  const local = kst(instant)
  const weekday = (local.getUTCDay() + 6) % 7
  const perDay = rhythm.perDay * (weekdayFactor[weekday] ?? 1) * (monthFactor[local.getUTCMonth()] ?? 1)
  return (perDay * (hourWeights[local.getUTCHours()] ?? 0)) / hourTotal / hourMs
}

const maxRate = (rhythm: Rhythm) =>
  (rhythm.perDay * Math.max(...weekdayFactor) * Math.max(...monthFactor) * Math.max(...hourWeights)) /
  hourTotal /
  hourMs

/** The instant of the next sale after `from` (thinning a Poisson process of the busiest rate). */
export function nextSaleAt(rhythm: Rhythm, from: number, random = Math.random) {
  const speed = rhythm.speed ?? 1
  const ceiling = maxRate(rhythm) * speed
  let t = from
  for (let tries = 0; tries < 1_000_000; tries++) {
    t += -Math.log(1 - random()) / ceiling
    if (random() * ceiling < rateAt(rhythm, t) * speed) return t
  }
  return t
}

export function amountOfCycle(random = Math.random) {
  let pick = random() * amountTotal
  for (const [amount, weight] of amountWeights) {
    pick -= weight
    if (pick < 0) return amount
  }
  return 4000
}

/**
 * Calls `onSale` at each simulated sale, from now on, until stopped. Time is the wall clock: a demo
 * device sells when the store would.
 */
export function simulate(
  rhythm: Rhythm,
  onSale: (amount: number) => void,
  clock: { now(): number } = Date,
): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  const schedule = (from: number) => {
    if (stopped) return
    const at = nextSaleAt(rhythm, from)
    // Timers longer than about 24.8 days overflow; a wait is re-planned at most every hour.
    const wait = Math.min(Math.max(0, at - clock.now()), hourMs)
    timer = setTimeout(() => {
      if (clock.now() + 5 < at) return schedule(clock.now())
      onSale(amountOfCycle())
      schedule(at)
    }, wait)
  }
  schedule(clock.now())
  return {
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
    },
  }
}
