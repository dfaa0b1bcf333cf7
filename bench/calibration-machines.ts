// The machine-silent rule's calibration (docs/product.md §12, decision 191), its replay: each calibration
// store's sales put on machines (washers and dryers, bench/calibration.ts's stores), with outages of
// the whole store, of one machine and of the card terminal at seeded random daytime minutes; the app's
// own rule (domain/machine-silent.ts, the shares and runs read once a UTC day from the 28 days before) run at
// every instant its evidence moves (a sale of a kind; a new day's model); and the oracle's yardstick,
// each machine's true expected sales as they would have reached the server. Pure, no clock.
//
// - A sale is a washer's with probability WASHER_SHARE, else a dryer's. Its machine is drawn by the
//   machines' weights (0.5–1.5, so shares differ) among those of its kind not busy (a wash or a dry
//   takes 45 min; all busy: among all) and not dead. A dead machine's customers use another: the
//   store's total does not move, which is why the store rule cannot see it.
// - A terminal outage: card sales (CARD_SHARE of them) do not happen; cash and coin ones do.
import { dayMs, hourMs, startOfDay } from '../domain/calendar.ts'
import {
  HISTORY_DAYS,
  type MachineModel,
  machineModels,
  machineSilence,
  RUN_LEVELS,
} from '../domain/machine-silent.ts'
import type { MachineKind } from '../domain/machines.ts'
import { injectOutages, type Outage } from './calibration-model.ts'
import { ExpectedCurve } from './calibration-oracle.ts'
import type { SimulatedStore } from './calibration-stores.ts'

export const WASHER_SHARE = 0.55
export const CARD_SHARE = 0.7
const busyMs = 45 * 60_000
const minuteMs = 60_000

export interface SimMachine {
  machine: string
  kind: MachineKind
  weight: number
}

/** The machines of a store of `perDay` sales a day: more as it sells more. */
export function machinesFor(perDay: number, random: () => number): SimMachine[] {
  const [washers, dryers] =
    perDay < 20 ? [2, 2] : perDay < 45 ? [3, 2] : perDay < 75 ? [4, 3] : perDay < 150 ? [5, 4] : [8, 6]
  const make = (kind: MachineKind, count: number, letter: string) =>
    Array.from({ length: count }, (_, i) => ({ machine: `${letter}${i + 1}`, kind, weight: 0.5 + random() }))
  return [...make('washer', washers, 'W'), ...make('dryer', dryers, 'D')]
}

export interface MachineOutage extends Outage {
  machine: string
}

export interface MachineReplay {
  machines: SimMachine[]
  /** The sales the server receives: instant and machine. */
  received: { at: number; machine: string }[]
  storeOutages: Outage[]
  terminalOutages: Outage[]
  machineOutages: MachineOutage[]
}

const inside = (outages: readonly Outage[], at: number) => outages.some((o) => at >= o.start && at < o.end)

/** Draws one machine by weight among `pool`. */
function draw(pool: readonly SimMachine[], random: () => number) {
  const total = pool.reduce((sum, m) => sum + m.weight, 0)
  let r = random() * total
  for (const machine of pool) {
    r -= machine.weight
    if (r < 0) return machine
  }
  return pool.at(-1) as SimMachine
}

/**
 * The store's replay over [from, to): outages of each sort (daytime starts, a day apart from each
 * other), its sales on machines, what reaches the server.
 */
export function machineReplay(
  store: SimulatedStore,
  perDay: number,
  { from, to, random }: { from: number; to: number; random: () => number },
): MachineReplay {
  const machines = machinesFor(perDay, random)
  // Drawn together so none overlaps another; then dealt: 3 whole-store (a day), 4 terminal (2–8 h), 8 machines (a day).
  const drawn = injectOutages(random, from, to, 15, { hours: [2, 24], daytime: true })
  const order = drawn.map((outage) => ({ outage, r: random() })).sort((a, b) => a.r - b.r)
  const storeOutages: Outage[] = []
  const terminalOutages: Outage[] = []
  const machineOutages: MachineOutage[] = []
  order.forEach(({ outage }, index) => {
    if (index < 3) storeOutages.push({ start: outage.start, end: outage.start + dayMs })
    else if (index < 7)
      terminalOutages.push({
        start: outage.start,
        end: outage.start + Math.min(8 * hourMs, outage.end - outage.start),
      })
    else {
      const machine = machines[Math.floor(random() * machines.length)] as SimMachine
      machineOutages.push({ start: outage.start, end: outage.start + dayMs, machine: machine.machine })
    }
  })
  const busyUntil = new Map<string, number>()
  const received: { at: number; machine: string }[] = []
  for (const at of store.sales) {
    const kind: MachineKind = random() < WASHER_SHARE ? 'washer' : 'dryer'
    const card = random() < CARD_SHARE
    const working = machines.filter(
      (m) =>
        m.kind === kind &&
        !machineOutages.some((o) => o.machine === m.machine && at >= o.start && at < o.end),
    )
    const free = working.filter((m) => (busyUntil.get(m.machine) ?? 0) <= at)
    const machine = draw(free.length > 0 ? free : working, random)
    busyUntil.set(machine.machine, at + busyMs)
    if (inside(storeOutages, at) || (card && inside(terminalOutages, at))) continue
    received.push({ at, machine: machine.machine })
  }
  return { machines, received, storeOutages, terminalOutages, machineOutages }
}

/** A machine-silent alert: the machine, when it was raised, and its episode (the machine's last sale). */
export interface MachineAlert {
  machine: string
  at: number
  since: number
}

/** The models of the UTC day `day`: each machine's sales and runs in the HISTORY_DAYS days before. */
function modelsOn(replay: MachineReplay, day: number, firstSale: number) {
  const counts = new Map<string, number>()
  const runs = new Map(replay.machines.map((m) => [m.machine, Array<number>(RUN_LEVELS).fill(0)]))
  const kindOf = new Map(replay.machines.map((m) => [m.machine, m.kind]))
  // Each kind's sales numbered in turn; a machine's run: the kind's sales between two of its.
  const kindCount = new Map<MachineKind, number>()
  const previous = new Map<string, number>()
  for (const sale of replay.received) {
    if (sale.at < day - HISTORY_DAYS * dayMs || sale.at >= day) continue
    counts.set(sale.machine, (counts.get(sale.machine) ?? 0) + 1)
    const kind = kindOf.get(sale.machine) as MachineKind
    const n = kindCount.get(kind) ?? 0
    kindCount.set(kind, n + 1)
    const before = previous.get(sale.machine)
    previous.set(sale.machine, n)
    const levels = runs.get(sale.machine)
    if (before === undefined || !levels) continue
    const run = n - before - 1
    for (let k = 0; k < RUN_LEVELS && run >= 2 ** k; k++) levels[k] = (levels[k] as number) + 1
  }
  const days = Math.max(1, Math.min(HISTORY_DAYS, Math.ceil((day - firstSale) / dayMs)))
  return { days, counts, runs }
}

/**
 * The alerts of an evaluator running the rule every minute over [from, to): evaluated at each instant its
 * evidence can move (each received sale, each UTC day's new model), an alert at the next whole minute.
 */
export function replayRule(replay: MachineReplay, from: number, to: number): MachineAlert[] {
  const alerts: MachineAlert[] = []
  const alerted = new Set<string>()
  const lastSale = new Map<string, number>()
  const othersSince = new Map<string, number>(replay.machines.map((m) => [m.machine, 0]))
  const kindOf = new Map(replay.machines.map((m) => [m.machine, m.kind]))
  const firstSale = replay.received[0]?.at ?? from
  let day = Number.NaN
  let models = new Map<string, MachineModel>()
  let counts = new Map<string, number>()
  const check = (at: number) => {
    if (at < from || at >= to) return
    for (const m of replay.machines) {
      const last = lastSale.get(m.machine) ?? null
      const read = {
        machine: m.machine,
        kind: m.kind,
        historySales: counts.get(m.machine) ?? 0,
        lastSaleAt: last,
      }
      const silent = machineSilence(read, models.get(m.machine), othersSince.get(m.machine) ?? 0)
      if (!silent || alerted.has(`${m.machine}|${silent.since}`)) continue
      alerted.add(`${m.machine}|${silent.since}`)
      alerts.push({ machine: m.machine, at: Math.ceil(at / minuteMs) * minuteMs, since: silent.since })
    }
  }
  const newDay = (at: number) => {
    day = startOfDay(at)
    const history = modelsOn(replay, day, firstSale)
    counts = history.counts
    models = machineModels(
      replay.machines.map((m) => ({
        machine: m.machine,
        kind: m.kind,
        historySales: history.counts.get(m.machine) ?? 0,
        lastSaleAt: lastSale.get(m.machine) ?? null,
        runs: history.runs.get(m.machine),
      })),
      history.days,
    )
    check(day)
  }
  for (const sale of replay.received) {
    if (sale.at >= to) break
    while (!(startOfDay(sale.at) <= day)) newDay(Number.isNaN(day) ? sale.at : day + dayMs)
    lastSale.set(sale.machine, sale.at)
    othersSince.set(sale.machine, 0)
    const kind = kindOf.get(sale.machine)
    for (const m of replay.machines)
      if (m.kind === kind && m.machine !== sale.machine)
        othersSince.set(m.machine, (othersSince.get(m.machine) ?? 0) + 1)
    check(sale.at)
  }
  return alerts
}

/**
 * Each machine's oracle curve: its true expected sales as they reach the server, hour by hour: the
 * store's true rate × its kind's share × the machine's true share (its sales over its kind's, in hours
 * no machine of the kind was dead), less the hours' parts in a store outage and the card part of a
 * terminal outage.
 */
export function machineCurves(store: SimulatedStore, replay: MachineReplay, from: number) {
  const reach = store.perHour.map((rate, hour) => {
    const start = from + hour * hourMs
    const covered = (outages: readonly Outage[]) =>
      outages.reduce(
        (sum, o) => sum + Math.max(0, Math.min(o.end, start + hourMs) - Math.max(o.start, start)),
        0,
      ) / hourMs
    return rate * (1 - covered(replay.storeOutages) - CARD_SHARE * covered(replay.terminalOutages))
  })
  const curves = new Map<string, ExpectedCurve>()
  for (const kind of ['washer', 'dryer'] as const) {
    const mates = replay.machines.filter((m) => m.kind === kind)
    const healthy = replay.received.filter(
      (s) =>
        mates.some((m) => m.machine === s.machine) &&
        !replay.machineOutages.some(
          (o) => s.at >= o.start && s.at < o.end && mates.some((m) => m.machine === o.machine),
        ),
    )
    const kindShare = kind === 'washer' ? WASHER_SHARE : 1 - WASHER_SHARE
    for (const m of mates) {
      const share = healthy.filter((s) => s.machine === m.machine).length / Math.max(1, healthy.length)
      curves.set(
        m.machine,
        new ExpectedCurve(
          from,
          reach.map((rate) => rate * kindShare * share),
        ),
      )
    }
  }
  return curves
}
