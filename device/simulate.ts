// `--simulate`: sales at a laundry store's usual rhythm, for demos and trials. The rhythm and the demo
// stores' machines are defined here, once: the demo data (server/db/seed.ts) reads them from this file,
// so the live demo devices sell as the seeded history did (the device imports nothing of the server): by
// hour of the day in Korea, by weekday and by month, with the same prices, machines and payment methods.
// Arrivals are a Poisson process whose rate follows that rhythm (drawn by thinning), so the figures look
// like the seeded ones; the store around them (machines running, one out of order, the payment terminal
// down, a refund now and then) is `simulatedStore`, which the heartbeat reports.
import { randomUUID } from 'node:crypto'
import type { MachineState, PaymentMethod } from '../domain/machines.ts'
import type { Sale } from './batch.ts'

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

/**
 * How a sale is paid at a Korean self-service laundry, in percent: card readers take most, then the
 * phone (카카오페이, 네이버페이…), notes in the changer, coins, the store's points.
 */
export const methodShares: [PaymentMethod, number][] = [
  ['card', 65],
  ['mobile', 15],
  ['cash', 10],
  ['coin', 8],
  ['point', 2],
]

/** A demo store's machine: its kind, how popular it is, and the prices it charges. */
export interface DemoMachine {
  machine: string
  kind: 'washer' | 'dryer'
  /** How often it is chosen among the store's machines that charge a sale's price. */
  weight: number
  /** The prices it charges, in won (each one of `amountWeights`'). */
  prices: number[]
}

/** A cycle's length in minutes (at speed 1): a machine reports `running` this long after its sale. */
export const cycleMinutes = { washer: 40, dryer: 50 } as const

const washerPrices = [4000, 4500, 5000]
/** The big washer (대형, for bedding) is the only one charging these. */
const bigWasherPrices = [6000, 7000, 8000]
const dryerPrices = [3000, 3500, 4000]

/**
 * The demo stores' machines, by their usual cycles a day (the first set whose `fromPerDay` the store
 * reaches): washers W1… (the last, the big one, 대형, at the higher prices) and dryers D1…, by weight,
 * the first ones the most used. A sale's price is drawn first (`amountWeights`), then its machine among
 * those charging it, so prices and machines agree.
 */
export const demoMachineSets: { fromPerDay: number; machines: DemoMachine[] }[] = [
  { fromPerDay: 150, machines: machineSet([9, 8, 7, 5, 3, 1], [8, 6, 4, 2]) },
  { fromPerDay: 70, machines: machineSet([6, 5, 3, 1], [5, 3, 2]) },
  { fromPerDay: 0, machines: machineSet([5, 3, 1], [4, 3, 1]) },
]

/** Washers W1… of these weights (the last, the big one), dryers D1… of these. */
function machineSet(washers: number[], dryers: number[]): DemoMachine[] {
  return [
    ...washers.map(
      (weight, i): DemoMachine => ({
        machine: `W${i + 1}`,
        kind: 'washer',
        weight,
        prices: i === washers.length - 1 ? bigWasherPrices : washerPrices,
      }),
    ),
    ...dryers.map(
      (weight, i): DemoMachine => ({ machine: `D${i + 1}`, kind: 'dryer', weight, prices: dryerPrices }),
    ),
  ]
}

export function machinesFor(perDay: number): DemoMachine[] {
  return demoMachineSets.find((set) => perDay >= set.fromPerDay)?.machines ?? []
}

/** Each value repeated by its weight: an index drawn uniformly picks by weight. */
export const byWeight = <T>(weights: [T, number][]) =>
  weights.flatMap(([value, weight]) => Array<T>(weight).fill(value))

/** The names of `machines` charging `amount`, each repeated by its weight (empty: none charges it). */
export const machinePicks = (machines: DemoMachine[], amount: number) =>
  byWeight(
    machines.filter((m) => m.prices.includes(amount)).map((m): [string, number] => [m.machine, m.weight]),
  )

export const methodPicks = byWeight(methodShares)

export interface Rhythm {
  /** Cycles on an ordinary day (before the weekday and month factors). */
  perDay: number
  /** Hours of the day in Korea, [from, to), when the device sends nothing (a broken reader). */
  silent?: [number, number]
  /** Time runs this much faster (a demo that shows a day in minutes); 1 by default. */
  speed?: number
  /** The store's machines; `machinesFor(perDay)` unless given. */
  machines?: DemoMachine[]
  /** A machine out of order every day in a window: it sells nothing then and reports `error` with `code`. */
  outOfOrder?: { machine: string; window: DailyWindow; code: string }
  /**
   * The payment terminal is down every day in this window: a card, phone or points payment fails (once
   * or twice, counted in the heartbeat's `failedPayments`) and the customer pays in notes or coins.
   */
  terminalDown?: DailyWindow
}

/** A daily window in Korea time, minutes of the day [from, to): `[13 * 60, 18 * 60]` is 13:00–18:00. */
export type DailyWindow = [number, number]

const hourMs = 3600_000
const kst = (instant: number) => new Date(instant + 9 * hourMs)

const within = ([from, to]: [number, number], at: number) =>
  from <= to ? at >= from && at < to : at >= from || at < to

export function isSilent(rhythm: Rhythm, instant: number) {
  return rhythm.silent ? within(rhythm.silent, kst(instant).getUTCHours()) : false
}

export function inWindow(window: DailyWindow | undefined, instant: number) {
  const local = kst(instant)
  return window ? within(window, local.getUTCHours() * 60 + local.getUTCMinutes()) : false
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

/** What a simulated store's heartbeat says (docs/product.md §14). */
export type StoreReport = {
  machines: { machine: string; kind: DemoMachine['kind']; state: MachineState; code?: string }[]
  terminal: 'ok' | 'down'
  failedPayments?: number
}

const cashLike = (method: PaymentMethod) => method === 'cash' || method === 'coin'

/**
 * A simulated store: the sales made at an instant (a price, its machine by weight among the working
 * ones charging it, a method by its share; about once a week a refund of the previous sale first), and
 * what its heartbeat says at an instant: each machine `running` for its cycle after its sale (the
 * cycle shortened by the speed), `idle` otherwise, the one out of order `error`; the terminal; the
 * payments that failed since the last report.
 */
export function simulatedStore(rhythm: Rhythm, random = Math.random) {
  const machines = rhythm.machines ?? machinesFor(rhythm.perDay)
  const speed = rhythm.speed ?? 1
  const runningUntil = new Map<string, number>()
  const refundChance = 1 / (7 * Math.max(1, rhythm.perDay))
  let previous: Sale | undefined
  let failed = 0
  const broken = (at: number) =>
    rhythm.outOfOrder && inWindow(rhythm.outOfOrder.window, at) ? rhythm.outOfOrder : undefined
  const pick = <T>(values: T[]) => values[Math.floor(random() * values.length)]
  const picksOf = new Map<string, string[]>()
  const picksFor = (working: DemoMachine[], out: string | undefined, amount: number) => {
    const key = `${out ?? ''}:${amount}`
    const picks = picksOf.get(key) ?? machinePicks(working, amount)
    picksOf.set(key, picks)
    return picks
  }

  function sell(at: number): Sale[] {
    const out = broken(at)?.machine
    const working = machines.filter((machine) => machine.machine !== out)
    let amount = amountOfCycle(random)
    let picks = picksFor(working, out, amount)
    for (let tries = 0; picks.length === 0 && tries < 20; tries++) {
      amount = amountOfCycle(random)
      picks = picksFor(working, out, amount)
    }
    const name = pick(picks)
    const machine = working.find((m) => m.machine === name) ?? working[0]
    if (!machine) return []
    if (!name) amount = machine.prices[0] ?? amount
    let method = pick(methodPicks) ?? 'card'
    if (inWindow(rhythm.terminalDown, at) && !cashLike(method)) {
      failed += 1 + Math.floor(random() * 2)
      method = random() < 0.5 ? 'cash' : 'coin'
    }
    const createdAt = new Date(at).toISOString()
    const sales: Sale[] = []
    if (previous && random() < refundChance) {
      const { id, amount: paid, machine: on, method: by } = previous
      sales.push({
        id: randomUUID(),
        createdAt,
        amount: -paid,
        refundOf: id,
        ...(on ? { machine: on } : {}),
        ...(by ? { method: by } : {}),
      })
    }
    previous = { id: randomUUID(), createdAt, amount, machine: machine.machine, method }
    sales.push(previous)
    runningUntil.set(machine.machine, at + (cycleMinutes[machine.kind] * 60_000) / speed)
    return sales
  }

  function report(at: number): StoreReport {
    const out = broken(at)
    const failedPayments = failed
    failed = 0
    return {
      machines: machines.map(({ machine, kind }) =>
        machine === out?.machine
          ? { machine, kind, state: 'error', code: out.code }
          : { machine, kind, state: (runningUntil.get(machine) ?? 0) > at ? 'running' : 'idle' },
      ),
      terminal: inWindow(rhythm.terminalDown, at) ? 'down' : 'ok',
      ...(failedPayments > 0 ? { failedPayments } : {}),
    }
  }

  return { sell, report }
}

/**
 * Calls `onSale` with each simulated sale (and a refund made with it), from now on, until stopped;
 * `report()` is what the store's heartbeat says now. Time is the wall clock: a demo device sells when
 * the store would.
 */
export function simulate(
  rhythm: Rhythm,
  onSale: (sales: Sale[]) => void,
  clock: { now(): number } = Date,
): { stop(): void; report(): StoreReport } {
  const store = simulatedStore(rhythm)
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  const schedule = (from: number) => {
    if (stopped) return
    const at = nextSaleAt(rhythm, from)
    // Timers longer than about 24.8 days overflow; a wait is re-planned at most every hour.
    const wait = Math.min(Math.max(0, at - clock.now()), hourMs)
    timer = setTimeout(() => {
      if (clock.now() + 5 < at) return schedule(clock.now())
      onSale(store.sell(Math.min(at, clock.now())))
      schedule(at)
    }, wait)
  }
  schedule(clock.now())
  return {
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
    },
    report: () => store.report(clock.now()),
  }
}
